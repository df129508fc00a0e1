import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { BrowserContext } from 'playwright-core'

export interface TestProvider {
  issuer: string
  /** Replace the claims the provider gives each login name (read at each sign-in). */
  setUsers(users: Record<string, Record<string, unknown>>): void
  stop(): Promise<void>
}

/** Starts test/support/oidc-provider-server.ts in its own process and waits for the issuer it prints. */
export async function startTestProvider(options: {
  clientId: string
  clientSecret: string
  redirectUris: string[]
  users: Record<string, Record<string, unknown>>
}): Promise<TestProvider> {
  const directory = mkdtempSync(join(tmpdir(), 'tollgate-idp-'))
  const usersFile = join(directory, 'users.json')
  const setUsers = (users: Record<string, Record<string, unknown>>) => writeFileSync(usersFile, JSON.stringify(users))
  setUsers(options.users)
  const settings = { clientId: options.clientId, clientSecret: options.clientSecret, redirectUris: options.redirectUris, usersFile }
  const child = Bun.spawn(['bun', join(import.meta.dir, 'oidc-provider-server.ts'), JSON.stringify(settings)], {
    stdout: 'pipe',
    stderr: 'pipe',
    stdin: 'ignore',
  })
  const reader = child.stdout.getReader()
  let buffered = ''
  const deadline = Date.now() + 20_000
  while (!buffered.includes('\n')) {
    const { value, done } = await reader.read()
    if (done || Date.now() > deadline)
      throw new Error(`the test identity provider did not start: ${await new Response(child.stderr).text()}`)
    buffered += new TextDecoder().decode(value)
  }
  reader.releaseLock()
  const { issuer } = JSON.parse(buffered.slice(0, buffered.indexOf('\n'))) as { issuer: string }
  return {
    issuer,
    setUsers,
    async stop() {
      child.kill('SIGTERM')
      await child.exited
      rmSync(directory, { recursive: true, force: true })
    },
  }
}

/**
 * Lets the browser reach loopback addresses only: the provider's development pages import a web font's stylesheet,
 * and a test never sends traffic off this machine. Anything else gets an empty answer (not an error the page logs).
 */
export async function keepOnLoopback(context: BrowserContext): Promise<void> {
  await context.route(
    (url) => !['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname),
    (route) => route.fulfill({ status: 200, body: '' }),
  )
}
