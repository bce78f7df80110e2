export { echoValue, MAX_ECHO_LENGTH } from './echo.js'
export {
  type ErrorBody,
  type ErrorDetail,
  errorBody,
  isKeywardError,
  KeywardError,
  toKeywardError,
} from './error.js'
export { checkKnownFields, type KnownFieldsWording, nearestName } from './extra-fields.js'
export { ERROR_STATUS, ErrorType } from './types.js'
