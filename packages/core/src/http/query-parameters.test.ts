import { describe, expect, it } from 'vitest'
import { isKeywardError } from '../errors/error.js'
import { checkQueryNames, queryParameters } from './query-parameters.js'

const LIST = ['limit', 'cursor', 'q', 'status']

function refusal(url: string, names: readonly string[]) {
  try {
    checkQueryNames({ url }, names)
  } catch (error) {
    if (isKeywardError(error))
      return { status: error.status, type: error.type, loc: error.loc, msg: error.msg }
    throw error
  }
  return null
}

describe('checkQueryNames', () => {
  it('refuses a misspelt parameter at ["query", name], naming the one it meant', () => {
    expect(refusal('/api/v1/projects/p1/api-keys?staus=active', LIST)).toEqual({
      status: 422,
      type: 'extra_forbidden',
      loc: ['query', 'staus'],
      msg: 'Unknown query parameter `staus`: did you mean `status`?',
    })
    expect(refusal('/x?limit=5&curser=abc', LIST)?.msg).toBe(
      'Unknown query parameter `curser`: did you mean `cursor`?',
    )
  })

  it('lists the parameters a route takes when none is near, and says when it takes none', () => {
    expect(refusal('/x?colour=red', LIST)?.msg).toBe(
      'Unknown query parameter `colour`: expected one of `limit`, `cursor`, `q`, `status`.',
    )
    expect(refusal('/x?force=true', [])).toEqual({
      status: 422,
      type: 'extra_forbidden',
      loc: ['query', 'force'],
      msg: 'Unknown query parameter `force`: this takes no query parameters.',
    })
  })

  it('takes the known parameters, given once, many times or empty, and a query with nothing in it', () => {
    for (const url of [
      '/x',
      '/x?',
      '/x?&',
      '/x?limit=5&limit=6&q=&status',
      '/x?q=a+b&cursor=WyIy#frag?colour=red',
      'https://api.example.com/x?limit=1',
    ]) {
      expect(refusal(url, LIST), url).toBeNull()
    }
  })

  it('compares names decoded, and exactly otherwise', () => {
    expect(refusal('/x?st%61tus=active', LIST)).toBeNull()
    expect(refusal('/x?Status=active', LIST)?.msg).toBe(
      'Unknown query parameter `Status`: did you mean `status`?',
    )
    // Not URL-encoded text: compared as sent, and refused.
    expect(refusal('/x?%zz=1', LIST)?.loc).toEqual(['query', '%zz'])
  })

  it('refuses the first unknown parameter, in the order sent', () => {
    expect(refusal('/x?limit=1&fist=2&colour=3', LIST)?.loc).toEqual(['query', 'fist'])
  })

  it('never repeats a name shaped like a key, and cuts a long one', () => {
    const key = `ak_${'Zq9x'.repeat(8)}`
    expect(refusal(`/x?${key}`, LIST)).toEqual({
      status: 422,
      type: 'extra_forbidden',
      loc: ['query'],
      msg: 'Unknown query parameter whose name is shaped like a key (not shown). Never send a key as a query parameter name.',
    })
    const long = 'n'.repeat(200)
    const answer = refusal(`/x?${long}=1`, [])
    expect(answer?.loc).toEqual(['query', `${'n'.repeat(64)}…`])
    expect(answer?.msg).toBe(
      `Unknown query parameter \`${'n'.repeat(64)}…\`: this takes no query parameters.`,
    )
  })
})

describe('queryParameters', () => {
  it("reads each known name's values, decoded (`+` a space), and leaves the others out", () => {
    expect(queryParameters('/x?q=a+b%20c&colour=red&q=&st%61tus=active', ['q', 'status'])).toEqual({
      q: ['a b c', ''],
      status: ['active'],
    })
  })
})
