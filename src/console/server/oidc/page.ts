import { assetUrl } from '../assets.ts'
import { securityHeaders } from '../respond.ts'

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`)

/**
 * The page a person sees when single sign-on ends without a session: what happened in a sentence and the way back.
 * Server-rendered (the browser arrives from the provider, not from the console's script), styled by the console's
 * own stylesheet, with no script at all.
 */
export function signInFailurePage(status: number, message: string): Response {
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign-in failed · Tollgate</title>
<link rel="icon" type="image/svg+xml" href="${assetUrl('icon.svg')}">
<link rel="stylesheet" href="${assetUrl('app.css')}">
</head>
<body>
<main class="sign-in">
<div class="card sign-in-card">
<p class="brand"><span class="brand-mark" aria-hidden="true">T</span>Tollgate</p>
<h1>You are not signed in</h1>
<p class="form-error" role="alert">${escapeHtml(message)}</p>
<p class="actions"><a class="button wide" href="/console">Back to sign in</a></p>
</div>
</main>
</body>
</html>
`
  return new Response(html, {
    status,
    headers: { ...securityHeaders, 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' },
  })
}
