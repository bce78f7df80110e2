// The Web-standard API that core's webhooks use besides those of ../platform.d.ts.
// It exists in Node 20+, Bun, Deno, browsers and edge workers.

declare class URL {
  constructor(url: string)
  readonly protocol: string
  readonly hostname: string
  readonly username: string
  readonly password: string
  readonly href: string
}
