export type { Expectation, HttpCase, JsonBody } from './case.js'
export {
  type HttpAdapterHarness,
  type HttpConformanceOptions,
  type RunningServer,
  runHttpConformance,
} from './conformance.js'
export { type FloodOutcome, sendChunkedFlood, streamChunkedBody } from './flood-body.js'
export { type ResponseCheck, type ResponseChecker, responseChecker } from './openapi-check.js'
export { type RawRequest, type RawResponse, sendRaw } from './raw-client.js'
export {
  CONFORMANCE_MAX_LIFETIME_DAYS,
  CONFORMANCE_NOW,
  CONFORMANCE_TOKEN,
  type ConformanceApp,
  type ConformanceWorld,
  createConformanceWorld,
  issuePolicyKeys,
} from './world.js'
