import { openapi } from '@elysiajs/openapi'
import { Elysia } from 'elysia'
import { version as packageVersion } from '../../../package.json'
import { assetUrl, htmlPage } from './assets.ts'

// The viewer is an embedded, content-hashed script like the console's own: the page needs no CDN and no
// inline script, so it works offline and under the console's Content-Security-Policy.
const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Tollgate console and admin API</title>
<link rel="icon" type="image/svg+xml" href="${assetUrl('icon.svg')}">
<link rel="stylesheet" href="${assetUrl('docs.css')}">
<script type="module" src="${assetUrl('docs.js')}"></script>
</head>
<body>
<div id="docs"><p role="status">Loading the API description…</p><noscript>This page needs JavaScript; the description itself is at <a href="/docs/json">/docs/json</a>.</noscript></div>
</body>
</html>
`

const description = `The JSON API behind the web console, under /console/api. It authenticates by session cookie only
(POST /console/api/session signs in; API keys are refused). Every state change must come from the console's own origin
and carry the session's CSRF token as the x-csrf-token header, with a JSON body (or none). Errors are
{ "error": { "message", "code", "field"? } }. Routes marked "Admins only" answer 404 to account users, exactly like a
missing route, and an account user sees only their own account's data.

The admin API, under /admin/api, is for automation: the same operations and shapes, authenticated by an admin token
(created with \`tollgate admin-token create NAME --scope read|full\`) sent as "Authorization: Bearer tga-…". API keys
and console sessions do not work there, and admin tokens work nowhere else. A read-scope token may only read: every
change answers 403 to it. Bodies are JSON; errors have the console's shape.`

/**
 * The console API's OpenAPI document at /docs/json, built by @elysiajs/openapi from the routes' `t` schemas
 * (never `fromTypes()`, which needs the sources at run time), and a page at /docs that lays it out. The
 * plugin's own pages load Scalar or Swagger UI from a CDN, so its provider is off and /docs is ours.
 * Only /console/api and /admin/api are described: the model endpoints follow the OpenAI, Anthropic and Gemini APIs.
 */
export function apiDocs() {
  return new Elysia({ name: 'api-docs' })
    .use(
      openapi({
        path: '/docs',
        specPath: '/docs/json',
        provider: null,
        exclude: { paths: [/^(?!\/(console|admin)\/api\/)/] },
        documentation: {
          info: { title: 'Tollgate console and admin API', version: packageVersion, description },
          components: {
            securitySchemes: {
              adminToken: { type: 'http', scheme: 'bearer', description: 'An admin token (tga-…) from `tollgate admin-token create`' },
            },
          },
          tags: [
            { name: 'Session', description: 'Signing in and out; the CSRF token' },
            { name: 'Accounts', description: 'Balances, credits and their history' },
            { name: 'API keys', description: 'Keys for the model endpoints (/v1/…)' },
            { name: 'Usage', description: 'Totals, charts and the request log' },
            { name: 'Logins', description: 'Console users (admins only)' },
            { name: 'Models', description: 'Models, prices and route health' },
            { name: 'Tasks', description: 'Batches of every kind, their items and results' },
            { name: 'Audit log', description: 'Who changed what, when and from where' },
            {
              name: 'Admin API',
              description: 'Accounts, keys, usage and the audit log for automation, with an admin token (Authorization: Bearer tga-…)',
            },
          ],
        },
      }),
    )
    .get('/docs', () => htmlPage(page), { detail: { hide: true } })
}
