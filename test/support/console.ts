import type { UserRole } from '../../src/domain/records.ts'
import type { Store } from '../../src/domain/repositories.ts'
import { createUser } from '../../src/domain/users.ts'

/** A console session driven over plain HTTP: the cookie and CSRF token a browser would hold. */
export interface ConsoleClient {
  cookie: string
  csrf: string
  get(path: string): Promise<Response>
  send(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Response>
}

export async function addLogin(store: Store, name: string, role: UserRole, accountId?: number): Promise<string> {
  const password = `pw-${name}-${crypto.randomUUID()}`
  await createUser(store, { name, role, accountId, password })
  return password
}

export function postSignIn(url: string, username: string, password: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${url}/console/api/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ username, password }),
  })
}

export async function signIn(url: string, username: string, password: string): Promise<ConsoleClient> {
  const response = await postSignIn(url, username, password)
  if (response.status !== 200) throw new Error(`sign-in failed: ${response.status} ${await response.text()}`)
  const cookie = response.headers.get('set-cookie')!.split(';')[0]!
  const { csrf_token: csrf } = (await response.json()) as { csrf_token: string }
  return {
    cookie,
    csrf,
    get: (path) => fetch(`${url}${path}`, { headers: { cookie } }),
    send: (method, path, body, headers = {}) =>
      fetch(`${url}${path}`, {
        method,
        headers: { cookie, 'x-csrf-token': csrf, 'content-type': 'application/json', ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
  }
}
