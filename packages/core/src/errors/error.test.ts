import { describe, expect, it } from 'vitest'
import { errorBody, isKeywardError, KeywardError, toKeywardError } from './error.js'
import { ERROR_STATUS, ErrorType } from './types.js'

describe('errors', () => {
  it('maps every error type to a status, and only those', () => {
    expect(Object.keys(ERROR_STATUS).sort()).toEqual(Object.values(ErrorType).sort())
    expect(ERROR_STATUS.key_invalid).toBe(401)
    expect(ERROR_STATUS.project_mismatch).toBe(403)
    expect(ERROR_STATUS.limit_exceeded).toBe(409)
    expect(ERROR_STATUS.uuid_parsing).toBe(422)
    expect(ERROR_STATUS.store_unavailable).toBe(503)
  })

  it('renders the spec body: detail with loc, msg and type, nothing else', () => {
    const error = new KeywardError(ErrorType.keyInvalid, 'nope', ['header', 'x-api-key'])
    expect(error.status).toBe(401)
    expect(errorBody(error)).toStrictEqual({
      detail: [{ loc: ['header', 'x-api-key'], msg: 'nope', type: 'key_invalid' }],
    })
    expect(JSON.stringify(errorBody(error))).not.toMatch(/input|stack/)
  })

  it('keeps several details for validation errors', () => {
    const details = [
      { loc: ['body', 'name'], msg: 'a', type: 'missing' },
      { loc: ['body', 'x'], msg: 'b', type: 'string_type' },
    ]
    const error = new KeywardError(ErrorType.missing, 'a', ['body', 'name'], { details })
    expect(errorBody(error).detail).toEqual(details)
  })

  it('turns anything else into a bare internal_error that says nothing of it', () => {
    const secret = new Error('connection string postgres://user:pw@db')
    const error = toKeywardError(secret)
    expect(error.status).toBe(500)
    expect(error.cause).toBe(secret)
    expect(JSON.stringify(errorBody(secret))).not.toContain('postgres')
    expect(errorBody('x').detail[0]!.type).toBe('internal_error')
  })

  it('recognises Keyward errors from another copy of the package', () => {
    const foreign = Object.assign(new Error('x'), { name: 'KeywardError', type: 'key_invalid', status: 401 })
    expect(isKeywardError(foreign)).toBe(true)
    expect(isKeywardError(new Error('x'))).toBe(false)
  })
})
