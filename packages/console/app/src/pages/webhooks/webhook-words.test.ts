import { WEBHOOK_EVENT_TYPES } from '@keyward/core'
import { describe, expect, it, vi } from 'vitest'
import { attemptOutcome, EVENT_TYPES, endpointStatus, projectsText } from './webhook-words'

// The page's API module reads the page's address when it loads: that of a console.
vi.hoisted(() => {
  vi.stubGlobal('location', new URL('http://127.0.0.1:3000/console/'))
})

describe('webhooks in words', () => {
  it('offers every event type an endpoint subscribes to, the test event aside', () => {
    expect(EVENT_TYPES.map((entry) => entry.type)).toEqual(
      WEBHOOK_EVENT_TYPES.filter((type) => type !== 'webhook.test'),
    )
  })

  it('says how an endpoint stands, and why a disabled one gets nothing', () => {
    const at = '2026-03-10T12:00:00.000Z'
    expect(endpointStatus({ disabled_at: null, failing_since: null })).toMatchObject({
      label: 'Enabled',
      tone: 'ok',
    })
    expect(endpointStatus({ disabled_at: null, failing_since: at })).toMatchObject({
      label: 'Failing',
      tone: 'warn',
    })
    const disabled = endpointStatus({ disabled_at: at, failing_since: at })
    expect(disabled).toMatchObject({ label: 'Disabled', tone: 'off' })
    expect(disabled.why).toMatch(/failed for 5 days/)
  })

  it('says whether an attempt delivered: a 2xx does, anything else or no answer does not', () => {
    expect(attemptOutcome({ status: 204 })).toEqual({ label: '204: delivered', tone: 'ok' })
    expect(attemptOutcome({ status: 302 })).toEqual({ label: '302: failed', tone: 'off' })
    expect(attemptOutcome({ status: 500 })).toEqual({ label: '500: failed', tone: 'off' })
    expect(attemptOutcome({ status: null })).toEqual({ label: 'No answer', tone: 'off' })
  })

  it('names the projects an endpoint takes, by name where known', () => {
    const names = new Map([['p1', 'Shop']])
    expect(projectsText(null, names)).toBe('every project')
    expect(projectsText(['p1', 'p2'], names)).toBe('Shop, p2')
  })
})
