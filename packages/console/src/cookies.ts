/** The session cookie's name: `__Host-` bound to the origin over HTTPS, where browsers allow it. */
export function sessionCookieName(secure: boolean): string {
  return secure ? '__Host-keyward_session' : 'keyward_session'
}

/** The value of one cookie of a `Cookie` header, or `undefined`. */
export function readCookie(header: string | readonly string[] | undefined, name: string): string | undefined {
  if (header === undefined) return undefined
  const lines = typeof header === 'string' ? [header] : header
  for (const line of lines) {
    for (const pair of line.split(';')) {
      const at = pair.indexOf('=')
      if (at !== -1 && pair.slice(0, at).trim() === name) return pair.slice(at + 1).trim()
    }
  }
  return undefined
}

/** A `Set-Cookie` value for the session: script cannot read it, other sites never send it. */
export function sessionCookie(secure: boolean, value: string, maxAgeSeconds: number): string {
  const attributes = [
    `${sessionCookieName(secure)}=${value}`,
    'Path=/',
    'HttpOnly',
    'SameSite=Strict',
    `Max-Age=${maxAgeSeconds}`,
  ]
  if (secure) attributes.push('Secure')
  return attributes.join('; ')
}

/** A `Set-Cookie` value that removes the session cookie. */
export function clearedSessionCookie(secure: boolean): string {
  return sessionCookie(secure, '', 0)
}
