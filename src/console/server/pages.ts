import { Elysia } from 'elysia'
import type { Services } from '../../edge/services.ts'
import { assetUrl, htmlPage, serveAsset } from './assets.ts'
import { consoleErrorResponse, notFound } from './respond.ts'

// No inline script or style anywhere: the strict CSP forbids them, so the page is only links to embedded files.
const shell = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Tollgate console</title>
<link rel="icon" type="image/svg+xml" href="${assetUrl('icon.svg')}">
<link rel="stylesheet" href="${assetUrl('app.css')}">
<script type="module" src="${assetUrl('app.js')}"></script>
</head>
<body>
<div id="app"><p class="boot" role="status">Loading the console…</p><noscript>The Tollgate console needs JavaScript.</noscript></div>
</body>
</html>
`

const servePage = () => htmlPage(shell)
const hidden = { detail: { hide: true } }

/** The console's pages and files; `GET /` sends browsers to the console and tells API clients where it is. */
export function pageRoutes(services: Services) {
  return (
    new Elysia({ name: 'console-pages' })
      .get(
        '/',
        ({ request }) => {
          if (request.headers.get('accept')?.includes('text/html'))
            return new Response(null, { status: 302, headers: { location: '/console' } })
          return Response.json({ name: 'tollgate', api: '/v1', console: '/console', docs: '/docs' })
        },
        hidden,
      )
      .get('/console', servePage, hidden)
      .get('/console/*', servePage, hidden)
      .get('/console/assets/:name', ({ params, request }) => serveAsset(params.name, request), hidden)
      // Unknown console API paths answer in the console's JSON shape, whatever the method.
      .all('/console/api/*', () => consoleErrorResponse(notFound('No such console API route.'), services.logger), hidden)
  )
}
