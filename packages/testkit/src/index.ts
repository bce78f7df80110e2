/**
 * Conformance suites for Keyward: every store and every HTTP adapter runs them.
 *
 * @packageDocumentation
 */

export {
  type CreditEventHarness,
  creditEventCases,
  type OutboxEvent,
} from './credit-event-cases.js'
export * from './http/index.js'
export { type SecretScanningSender, startSecretScanningSender } from './secret-scanning/sender.js'
export { runStoreConformance, type StoreConformanceOptions, type StoreHarness } from './store-conformance.js'
