import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'

/** One file of the built page, with its gzip form when that is smaller. */
export interface Asset {
  readonly body: Uint8Array
  readonly gzip: Uint8Array | undefined
  readonly type: string
  /** Its name carries a hash of its content: browsers may keep it for a year. */
  readonly immutable: boolean
}

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
  '.woff2': 'font/woff2',
}

const COMPRESSIBLE = /^(text\/|image\/svg|application\/json)/

/** The folder of the page that the package ships: `dist/app`, beside the built module or the source. */
export function defaultAssetsDir(): string {
  const here = fileURLToPath(new URL('.', import.meta.url))
  const candidates = [join(here, 'app'), join(here, '..', 'dist', 'app')]
  return candidates.find((dir) => existsSync(join(dir, 'index.html'))) ?? candidates[0]!
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? filesUnder(path) : [path]
  })
}

/** Every file of the built page by its path below the console (`/index.html`, `/assets/...`). */
export function loadAssets(dir: string): ReadonlyMap<string, Asset> {
  if (!existsSync(join(dir, 'index.html'))) {
    throw new TypeError(
      `createConsole: the console's page is not built (no index.html in ${dir}): run \`pnpm --filter @keyward/console build\`, or pass \`assetsDir\`.`,
    )
  }
  const assets = new Map<string, Asset>()
  for (const path of filesUnder(dir)) {
    const name = `/${relative(dir, path).split(sep).join('/')}`
    const body = readFileSync(path)
    const extension = name.slice(name.lastIndexOf('.'))
    const type = TYPES[extension] ?? 'application/octet-stream'
    const packed = COMPRESSIBLE.test(type) ? gzipSync(body, { level: 9 }) : undefined
    assets.set(name, {
      body,
      gzip: packed && packed.length < body.length ? packed : undefined,
      type,
      immutable: name.startsWith('/assets/'),
    })
  }
  return assets
}
