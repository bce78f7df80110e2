/**
 * Conformance suites for Keyward: every store and every HTTP adapter runs them.
 *
 * @packageDocumentation
 */
export { runStoreConformance, type StoreConformanceOptions, type StoreHarness } from './store-conformance.js'
