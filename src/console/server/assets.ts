import { bundleConsole } from '../build/bundle.ts' with { type: 'macro' }
import { securityHeaders } from './respond.ts'

const contentTypes: Record<string, string> = {
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  svg: 'image/svg+xml',
}

interface Asset {
  body: Uint8Array<ArrayBuffer>
  gzipped: Uint8Array<ArrayBuffer>
  type: string
}

/** Embedded files under content-hashed names, so browsers may cache them forever and a new binary busts them. */
function prepareAssets(files: Record<string, string>): { assets: Map<string, Asset>; names: Record<string, string> } {
  const assets = new Map<string, Asset>()
  const names: Record<string, string> = {}
  for (const [file, text] of Object.entries(files)) {
    const body = new TextEncoder().encode(text)
    const [stem, extension] = [file.slice(0, file.lastIndexOf('.')), file.slice(file.lastIndexOf('.') + 1)]
    const name = `${stem}.${Bun.hash(body).toString(36)}.${extension}`
    names[file] = `/console/assets/${name}`
    assets.set(name, {
      body,
      gzipped: Bun.gzipSync(body) as Uint8Array<ArrayBuffer>,
      type: contentTypes[extension] ?? 'application/octet-stream',
    })
  }
  return { assets, names }
}

const { assets, names } = prepareAssets(bundleConsole())

/** The URL an embedded file is served at, e.g. `assetUrl('app.js')` → `/console/assets/app.1x2y3z.js`. */
export function assetUrl(file: string): string {
  const url = names[file]
  if (!url) throw new Error(`no embedded file ${file}`)
  return url
}

export function serveAsset(name: string, request: Request): Response {
  const asset = assets.get(name)
  if (!asset) return new Response('Not found', { status: 404, headers: { ...securityHeaders, 'content-type': 'text/plain' } })
  const gzip = /\bgzip\b/.test(request.headers.get('accept-encoding') ?? '')
  return new Response(gzip ? asset.gzipped : asset.body, {
    headers: {
      ...securityHeaders,
      'content-type': asset.type,
      'cache-control': 'public, max-age=31536000, immutable',
      vary: 'accept-encoding',
      ...(gzip ? { 'content-encoding': 'gzip' } : {}),
    },
  })
}

/** An HTML page under the console's security headers; never cached, so a new binary's asset names take over. */
export function htmlPage(html: string): Response {
  return new Response(html, { headers: { ...securityHeaders, 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' } })
}
