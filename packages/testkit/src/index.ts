/**
 * Conformance suites for Keyward: every store and every HTTP adapter runs them.
 *
 * @packageDocumentation
 */

export {
  CONFORMANCE_NOW,
  CONFORMANCE_TOKEN,
  type ConformanceApp,
  type ConformanceWorld,
  createConformanceWorld,
  type Expectation,
  type HttpAdapterHarness,
  type HttpCase,
  type HttpConformanceOptions,
  type RawRequest,
  type RawResponse,
  type RunningServer,
  runHttpConformance,
  sendRaw,
} from './http/index.js'
export { runStoreConformance, type StoreConformanceOptions, type StoreHarness } from './store-conformance.js'
