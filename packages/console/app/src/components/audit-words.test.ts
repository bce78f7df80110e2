import { AUDIT_ACTIONS } from '@keyward/core'
import { describe, expect, it, vi } from 'vitest'
import type { AuditEntry } from '../api'
import { action, target } from './audit-words'

// The page's API module reads the page's address when it loads: that of a console.
vi.hoisted(() => {
  vi.stubGlobal('location', new URL('http://127.0.0.1:3000/console/'))
})

const ID = '0b6c3c1e-4f7a-4d2b-9a51-2f8d7c9e1a03'

/** A row of the log, with what a test gives. */
function row(fields: {
  action: string
  target: AuditEntry['target']
  before?: Record<string, unknown> | null
  after?: Record<string, unknown> | null
}): AuditEntry {
  return {
    seq: 1,
    at: '2026-03-10T12:00:00.000Z',
    actor: { type: 'developer', developer_id: 'dev-1', key_prefix: 'ak_Ab3xY' },
    client_address: null,
    request_id: null,
    developer_id: 'dev-1',
    project_id: 'p1',
    before: null,
    after: null,
    previous_hash: '0'.repeat(64),
    hash: '1'.repeat(64),
    ...fields,
  } as AuditEntry
}

describe('the audit log in words', () => {
  it('has words for every action the log records, none left as its code', () => {
    for (const code of AUDIT_ACTIONS) {
      const words = action(row({ action: code, target: { type: 'key', id: ID } }))
      expect(words, code).not.toBe(code)
      expect(words, code).toMatch(/^[A-Z][a-z]/)
    }
  })

  it('says what happened to an identity, and whether a key joined one or left it', () => {
    const identity = { type: 'identity', id: ID } as const
    expect(action(row({ action: 'identity.created', target: identity }))).toBe('Identity created')
    expect(action(row({ action: 'identity.updated', target: identity }))).toBe('Identity changed')
    expect(action(row({ action: 'identity.deleted', target: identity }))).toBe('Identity deleted')
    const pool = { before: { remaining: 100 }, after: { remaining: 1500, op: 'add', amount: 1400 } }
    expect(action(row({ action: 'identity.credits_changed', target: identity, ...pool }))).toBe(
      'Credit pool changed: 100 → 1,500',
    )
    const key = { type: 'key', id: ID } as const
    const joined = { key_prefix: 'ak_Ab3xY', identity_id: ID, active: true }
    expect(action(row({ action: 'key.identity_set', target: key, after: joined }))).toBe('Identity set')
    expect(
      action(row({ action: 'key.identity_set', target: key, after: { ...joined, identity_id: null } })),
    ).toBe('Identity removed')
  })

  it('names an identity by its external id when the row holds it, by its id otherwise', () => {
    const identity = { type: 'identity', id: ID } as const
    expect(
      target(row({ action: 'identity.created', target: identity, after: { external_id: 'user_42' } })),
    ).toBe('Identity “user_42”')
    expect(
      target(row({ action: 'identity.deleted', target: identity, before: { external_id: 'user_42' } })),
    ).toBe('Identity “user_42”')
    expect(
      target(row({ action: 'identity.updated', target: identity, after: { metadata: { redacted: true } } })),
    ).toBe(`Identity ${ID}`)
    expect(
      target(
        row({
          action: 'key.identity_set',
          target: { type: 'key', id: ID },
          after: { key_prefix: 'ak_Ab3xY' },
        }),
      ),
    ).toBe('Key ak_Ab3xY...')
  })
})
