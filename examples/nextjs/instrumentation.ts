// instrumentation.ts, beside app/ (Next.js runs it at start).
// Runs once when the server starts: issues the first keys and prints them once. A real app
// registers developers with the CLI (`keyward developers register`).
export async function register() {
  if (process.env.NEXT_RUNTIME !== 'nodejs') return
  const { keyward } = await import('@/lib/keyward')
  const developerKey = await keyward.issueDeveloperKey('dev_1', { name: 'example' })
  const apiKey = await keyward.issueProjectKey('proj_1', { name: 'default' })
  const url = `http://127.0.0.1:${process.env.PORT ?? 3000}`
  console.log(`Keyward + Next.js example listening on ${url}

  API key of project proj_1 (X-API-Key):    ${apiKey.key}
  Developer key of dev_1 (X-Developer-Key): ${developerKey.key}

These keys will not be shown again: copy them now.

  curl -H "X-API-Key: <the API key>" ${url}/api/v1/projects/proj_1/hello`)
}
