export {
  type ClientConfig,
  type ClientConfigFor,
  type ClientEnv,
  type ClientMode,
  type ConsoleClientConfig,
  type ProjectClientConfig,
  type ReadClientConfigOptions,
  readClientConfig,
} from './config.js'
export { ClientConfigError, type ClientConfigProblem } from './error.js'
export {
  type CheckClientSettingOptions,
  CLIENT_ENV,
  type ClientSetting,
  checkClientSetting,
} from './setting.js'
