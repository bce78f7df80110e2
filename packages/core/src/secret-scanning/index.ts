export type { SecretScanningMatch } from './alert.js'
export type { SecretScanningOptions } from './options.js'
export { GITHUB_SECRET_SCANNING_KEYS_URL, type SecretScanningFetch } from './public-keys.js'
export {
  createSecretScanningRoute,
  SECRET_SCANNING_PATH,
  type SecretScanningFeedback,
  type SecretScanningLabel,
} from './route.js'
