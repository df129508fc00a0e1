import { expect, test } from 'bun:test'
import { openSqliteStore } from '../src/db/sqlite/store.ts'
import { makeWorkspace, runCli } from './support/cli.ts'

const cli = ['bun', 'src/main.ts']

test('user create --sso makes a login without a password, waiting for its first single sign-on', async () => {
  const { dir, config } = makeWorkspace()
  const run = (...args: string[]) => runCli(cli, [...args, '--config', config])
  expect(run('migrate').code).toBe(0)
  const created = run('user', 'create', 'ops@example.com', '--admin', '--sso')
  expect(created.code).toBe(0)
  expect(created.stdout).toContain('without a password: it is linked to whoever first signs on with the email or username ops@example.com')
  expect(run('user', 'create', 'dev@example.com', '--admin', '--sso', '--json').json()).toEqual({
    name: 'dev@example.com',
    role: 'admin',
    account: null,
    single_sign_on: true,
  })
  const both = run('user', 'create', 'x@example.com', '--admin', '--sso', '--password-stdin')
  expect(both.code).toBe(2)
  expect(both.stderr).toContain('--sso and --password-stdin exclude each other')
  const store = openSqliteStore(`${dir}/tollgate.db`)
  expect((await store.users.findByName('ops@example.com'))!.passwordHash).toBe('')
  await store.close()
}, 30_000)
