/**
 * The one way the front end talks to the server: same-origin JSON, the session cookie sent by the browser, and
 * the CSRF token (handed out at sign-in) added to every state change.
 */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code?: string,
    readonly field?: string,
  ) {
    super(message)
  }
}

let csrfToken = ''
let sessionLost: () => void = () => {}

export function setCsrfToken(token: string): void {
  csrfToken = token
}

/** Called when the server says the session is gone, so the app can show the sign-in form again. */
export function onSessionLost(handler: () => void): void {
  sessionLost = handler
}

export async function callApi<T>(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' }
  if (method !== 'GET') headers['x-csrf-token'] = csrfToken
  if (body !== undefined) headers['content-type'] = 'application/json'
  let response: Response
  try {
    response = await fetch(`/console/api${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'same-origin',
      signal,
    })
  } catch (error) {
    if ((error as Error).name === 'AbortError') throw error
    throw new ApiError('Cannot reach the gateway. Check that it is running, then try again.', 0, 'network')
  }
  const payload = await response.json().catch(() => undefined)
  if (response.ok) return payload as T
  const problem = (payload as { error?: { message?: string; code?: string; field?: string } } | undefined)?.error
  const error = new ApiError(problem?.message ?? `The server answered ${response.status}.`, response.status, problem?.code, problem?.field)
  if (response.status === 401 && path !== '/session') sessionLost()
  throw error
}

export const getJson = <T>(path: string, signal?: AbortSignal) => callApi<T>('GET', path, undefined, signal)
export const postJson = <T>(path: string, body?: unknown) => callApi<T>('POST', path, body ?? {})

/** `?a=1&b=2` from the non-empty entries of an object. */
export function queryString(values: Record<string, string | number | undefined | null>): string {
  const params = new URLSearchParams()
  for (const [name, value] of Object.entries(values))
    if (value !== undefined && value !== null && value !== '') params.set(name, String(value))
  const text = params.toString()
  return text ? `?${text}` : ''
}
