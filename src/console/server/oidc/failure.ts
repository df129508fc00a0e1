/**
 * A single sign-on that did not end in a session. `reason` is a fixed word that goes to the log (and the tests);
 * `message` is what the person reads on the page; neither ever holds a token, a code or a secret.
 */
export class SignInFailure extends Error {
  constructor(
    readonly reason: string,
    readonly status: number,
    message: string,
    readonly detail?: string,
  ) {
    super(message)
    this.name = 'SignInFailure'
  }
}

export function providerUnreachable(detail: string): SignInFailure {
  return new SignInFailure(
    'provider_unreachable',
    503,
    'The identity provider could not be reached, so nobody can sign in with it right now. Try again in a few minutes; ' +
      'if it goes on, tell an operator.',
    detail,
  )
}

export function providerMisbehaved(detail: string): SignInFailure {
  return new SignInFailure(
    'provider_misconfigured',
    502,
    'The identity provider answered in a way this gateway cannot use. An operator needs to check the single sign-on settings.',
    detail,
  )
}

/** The largest discovery document, token answer or userinfo answer read: real ones are a few kilobytes. */
const maximumBytes = 1024 * 1024
const timeoutMs = 10_000

/**
 * One request to the provider, its JSON answer parsed. No answer or a 5xx is the provider being down; an answer
 * that is not JSON is a misconfiguration. A 4xx is returned for the caller to judge (the token endpoint's errors).
 */
export async function fetchProviderJson(
  url: string,
  init: RequestInit,
  what: string,
): Promise<{ status: number; body: Record<string, unknown> }> {
  let response: Response
  try {
    response = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) })
  } catch (error) {
    throw providerUnreachable(
      `${what}: ${(error as Error).name === 'TimeoutError' ? `no answer in ${timeoutMs / 1000} s` : (error as Error).message}`,
    )
  }
  if (response.status >= 500) {
    await response.body?.cancel()
    throw providerUnreachable(`${what}: HTTP ${response.status}`)
  }
  const length = Number(response.headers.get('content-length') ?? 0)
  if (length > maximumBytes) {
    await response.body?.cancel()
    throw providerMisbehaved(`${what}: answer of ${length} bytes`)
  }
  const text = await response.text().catch((error: Error) => {
    throw providerUnreachable(`${what}: ${error.message}`)
  })
  let body: unknown
  try {
    body = text.length <= maximumBytes ? JSON.parse(text) : undefined
  } catch {}
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw providerMisbehaved(`${what}: HTTP ${response.status}, not a JSON object`)
  return { status: response.status, body: body as Record<string, unknown> }
}
