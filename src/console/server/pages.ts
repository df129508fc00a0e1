import { Elysia } from 'elysia'
import { bundleConsole } from '../build/bundle.ts' with { type: 'macro' }
import { consoleErrorResponse, notFound, securityHeaders } from './respond.ts'
import type { Services } from '../../edge/services.ts'

const contentTypes: Record<string, string> = {
  js: 'text/javascript; charset=utf-8', css: 'text/css; charset=utf-8', svg: 'image/svg+xml',
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
    assets.set(name, { body, gzipped: Bun.gzipSync(body) as Uint8Array<ArrayBuffer>, type: contentTypes[extension] ?? 'application/octet-stream' })
  }
  return { assets, names }
}

const { assets, names } = prepareAssets(bundleConsole())

// No inline script or style anywhere: the strict CSP forbids them, so the page is only links to embedded files.
const shell = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Tollgate console</title>
<link rel="icon" type="image/svg+xml" href="${names['icon.svg']}">
<link rel="stylesheet" href="${names['app.css']}">
<script type="module" src="${names['app.js']}"></script>
</head>
<body>
<div id="app"><p class="boot" role="status">Loading the console…</p><noscript>The Tollgate console needs JavaScript.</noscript></div>
</body>
</html>
`

function servePage(): Response {
  return new Response(shell, { headers: { ...securityHeaders, 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' } })
}

function serveAsset(name: string, request: Request): Response {
  const asset = assets.get(name)
  if (!asset) return new Response('Not found', { status: 404, headers: { ...securityHeaders, 'content-type': 'text/plain' } })
  const gzip = /\bgzip\b/.test(request.headers.get('accept-encoding') ?? '')
  return new Response(gzip ? asset.gzipped : asset.body, {
    headers: {
      ...securityHeaders, 'content-type': asset.type, 'cache-control': 'public, max-age=31536000, immutable',
      vary: 'accept-encoding', ...(gzip ? { 'content-encoding': 'gzip' } : {}),
    },
  })
}

/** The console's pages and files; `GET /` sends browsers to the console and tells API clients where it is. */
export function pageRoutes(services: Services) {
  return new Elysia({ name: 'console-pages' })
    .get('/', ({ request }) => {
      if (request.headers.get('accept')?.includes('text/html')) return new Response(null, { status: 302, headers: { location: '/console' } })
      return Response.json({ name: 'tollgate', api: '/v1', console: '/console' })
    })
    .get('/console', servePage)
    .get('/console/*', servePage)
    .get('/console/assets/:name', ({ params, request }) => serveAsset(params.name, request))
    // Unknown console API paths answer in the console's JSON shape, whatever the method.
    .all('/console/api/*', () => consoleErrorResponse(notFound('No such console API route.'), services.logger))
}
