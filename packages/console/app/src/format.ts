const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' })

/** An instant as the reader's locale writes it; `fallback` when there is none. */
export function when(value: string | null | undefined, fallback = '—'): string {
  return value ? dateTime.format(new Date(value)) : fallback
}

/** How a key stands now, in words (never a colour alone). */
export function keyStatus(key: {
  active: boolean
  expires_at?: string | null
  revoked_reason?: string | null
}): { label: string; tone: 'ok' | 'warn' | 'off' } {
  if (!key.active) {
    return key.revoked_reason === 'leaked'
      ? { label: 'Revoked: leaked', tone: 'off' }
      : { label: 'Revoked', tone: 'off' }
  }
  if (key.expires_at && Date.parse(key.expires_at) <= Date.now()) return { label: 'Expired', tone: 'off' }
  if (key.expires_at) return { label: 'Active, expires', tone: 'warn' }
  return { label: 'Active', tone: 'ok' }
}
