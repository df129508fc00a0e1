import { afterAll, expect, test } from 'bun:test'
import { makeWorkspace, runCli, startServe } from './support/cli.ts'

const cli = ['bun', 'src/main.ts']
const { config } = makeWorkspace()
const run = (...args: string[]) => runCli(cli, [...args, '--config', config])
let server: Awaited<ReturnType<typeof startServe>> | undefined

afterAll(() => server?.process.kill('SIGTERM'))

/** `tollgate user …` with a password on stdin, the way an operator scripts the first run. */
function runWithStdin(stdin: string, ...args: string[]) {
  const result = Bun.spawnSync([...cli, ...args, '--config', config], {
    stdin: new TextEncoder().encode(stdin),
    stdout: 'pipe',
    stderr: 'pipe',
  })
  return { code: result.exitCode, stdout: result.stdout.toString(), stderr: result.stderr.toString() }
}

function signIn(url: string, username: string, password: string) {
  return fetch(`${url}/console/api/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password }),
  })
}

test('user create / list / password / delete: a generated password is printed once and signs in', async () => {
  expect(run('migrate').code).toBe(0) // only serve and migrate create a database
  expect(run('account', 'create', 'acme').code).toBe(0)
  const admin = run('user', 'create', 'root', '--admin', '--json')
  expect(admin.code).toBe(0)
  const created = admin.json()
  expect(created).toMatchObject({ name: 'root', role: 'admin', account: null })
  expect(created.password).toMatch(/^[0-9A-Za-z]{24}$/)

  const chosen = runWithStdin(
    'correct horse battery staple\n',
    'user',
    'create',
    'alice',
    '--account',
    'acme',
    '--password-stdin',
    '--json',
  )
  expect(chosen.code).toBe(0)
  // Without --role a login of an account is a viewer, the least privilege.
  expect(JSON.parse(chosen.stdout)).toEqual({ name: 'alice', role: 'viewer', account: 'acme' }) // no password echoed back
  expect(run('user', 'create', 'ann', '--role', 'account-admin', '--account', 'acme', '--json').json()).toMatchObject({
    name: 'ann',
    role: 'account-admin',
    account: 'acme',
  })
  expect(run('user', 'create', 'vic', '--role', 'viewer', '--account', 'acme', '--json').json()).toMatchObject({
    role: 'viewer',
    account: 'acme',
  })
  expect(run('user', 'create', 'root2', '--role', 'admin', '--json').json()).toMatchObject({ role: 'admin', account: null })
  expect(run('user', 'create', 'root3', '--admin', '--role', 'admin', '--json').json()).toMatchObject({ role: 'admin' })

  expect(run('user', 'create', 'x').code).toBe(2) // neither --admin, --role nor --account
  expect(run('user', 'create', 'x', '--admin', '--account', 'acme').code).toBe(2)
  expect(run('user', 'create', 'x', '--role', 'admin', '--account', 'acme').stderr).toContain('an admin belongs to no account')
  expect(run('user', 'create', 'x', '--role', 'viewer').stderr).toContain('needs --account ACCOUNT')
  expect(run('user', 'create', 'x', '--admin', '--role', 'viewer', '--account', 'acme').stderr).toContain('contradict')
  const unknown = run('user', 'create', 'x', '--role', 'account', '--account', 'acme')
  expect(unknown.code).toBe(2)
  expect(unknown.stderr).toContain('--role must be admin, account-admin, viewer; got "account"')
  expect(run('user', 'create', 'x', '--account', 'nope').stderr).toContain('does not exist')
  expect(runWithStdin('short\n', 'user', 'create', 'y', '--admin', '--password-stdin').stderr).toContain('at least 12 characters')
  expect(run('user', 'create', 'root', '--admin').stderr).toContain('already exists')

  const listed = run('user', 'list', '--json')
  expect(listed.stdout).not.toContain(created.password)
  expect(listed.json().map((user: { name: string; role: string; account: string | null }) => [user.name, user.role, user.account])).toEqual(
    [
      ['alice', 'viewer', 'acme'],
      ['ann', 'account-admin', 'acme'],
      ['root', 'admin', null],
      ['root2', 'admin', null],
      ['root3', 'admin', null],
      ['vic', 'viewer', 'acme'],
    ],
  )

  server = await startServe(cli, config)
  expect((await signIn(server.url, 'root', created.password)).status).toBe(200)
  expect((await signIn(server.url, 'alice', 'correct horse battery staple')).status).toBe(200)

  const changed = run('user', 'password', 'root', '--json').json()
  expect(changed.password).toMatch(/^[0-9A-Za-z]{24}$/)
  expect((await signIn(server.url, 'root', created.password)).status).toBe(401)
  expect((await signIn(server.url, 'root', changed.password)).status).toBe(200)

  expect(run('user', 'delete', 'alice', '--json').json()).toEqual({ name: 'alice', deleted: true })
  expect((await signIn(server.url, 'alice', 'correct horse battery staple')).status).toBe(401)
  expect(run('user', 'delete', 'alice').code).toBe(3)
}, 60_000)
