import { afterAll, expect, test } from 'bun:test'
import { makeWorkspace, runCli, startServe } from './support/cli.ts'

const cli = ['bun', 'src/main.ts']
const { config } = makeWorkspace()
const run = (...args: string[]) => runCli(cli, [...args, '--config', config])
let server: Awaited<ReturnType<typeof startServe>> | undefined

afterAll(() => server?.process.kill('SIGTERM'))

const accounts = (url: string, token: string) => fetch(`${url}/admin/api/accounts`, { headers: { authorization: `Bearer ${token}` } })

test('admin-token create / list / revoke: the secret is printed once, stored hashed, and works until revoked', async () => {
  expect(run('migrate').code).toBe(0)
  const created = run('admin-token', 'create', 'deploy-bot', '--scope', 'full', '--json')
  expect(created.code).toBe(0)
  const token = created.json()
  expect(token).toMatchObject({ name: 'deploy-bot', scope: 'full', status: 'active', last_used_at: null })
  expect(token.token).toMatch(/^tga-[0-9A-Za-z]{40}$/)
  expect(token.prefix).toBe(token.token.slice(0, 12))

  const human = run('admin-token', 'create', 'grafana', '--scope', 'read')
  expect(human.code).toBe(0)
  expect(human.stdout).toMatch(/created read admin token adm_\w+ \(grafana\)\n\n {2}tga-[0-9A-Za-z]{40}\n\nThis secret is shown only now/)

  // Mistakes are refused with the usage line, and nothing is created.
  const noScope = run('admin-token', 'create', 'x')
  expect(noScope.code).toBe(2)
  expect(noScope.stderr).toContain('--scope is required')
  const badScope = run('admin-token', 'create', 'x', '--scope', 'admin')
  expect(badScope.code).toBe(2)
  expect(badScope.stderr).toContain('"read" or "full"')
  expect(run('admin-token', 'create', '--scope', 'full').stderr).toContain('missing NAME')
  expect(run('admin-token', 'create', 'bad name!', '--scope', 'full').code).toBe(2)
  expect(run('admin-token', 'rotate', 'x').stderr).toContain('unknown command "admin-token rotate"')

  const listed = run('admin-token', 'list', '--json')
  expect(listed.stdout).not.toContain(token.token) // only the prefix is ever shown again
  expect(listed.json().map((item: { name: string; scope: string }) => [item.name, item.scope])).toEqual([
    ['deploy-bot', 'full'],
    ['grafana', 'read'],
  ])
  expect(run('admin-token', 'list').stdout).toMatch(/deploy-bot\s+full\s+tga-\w{8}…\s+active/)

  server = await startServe(cli, config)
  expect((await accounts(server.url, token.token)).status).toBe(200)
  expect(run('admin-token', 'list', '--json').json()[0].last_used_at).not.toBeNull()

  expect(run('admin-token', 'revoke', token.id, '--json').json()).toMatchObject({ id: token.id, status: 'revoked' })
  expect((await accounts(server.url, token.token)).status).toBe(401) // at once: tokens are looked up on every call
  expect(run('admin-token', 'revoke', token.id).stdout).toContain('was already revoked')
  expect(run('admin-token', 'revoke', 'adm_nope').code).toBe(3)
  expect(run('--help').stdout).toContain('admin-token create NAME --scope read|full')
}, 60_000)

test('tollgate status sends TOLLGATE_ADMIN_TOKEN when /status is protected (admin.protect_metrics)', async () => {
  const guarded = makeWorkspace(`admin: { protect_metrics: true }
providers:
  - { name: mock, type: mock }
models:
  - { id: mock-1, provider: mock, price: { input: 1, output: 2 } }
`)
  const runGuarded = (args: string[], env: Record<string, string> = {}) => runCli(cli, [...args, '--config', guarded.config], env)
  expect(runGuarded(['migrate']).code).toBe(0)
  const reader = runGuarded(['admin-token', 'create', 'status-reader', '--scope', 'read', '--json']).json().token as string
  const serving = await startServe(cli, guarded.config)
  try {
    const refused = runGuarded(['status', '--url', serving.url])
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain('set TOLLGATE_ADMIN_TOKEN')
    const shown = runGuarded(['status', '--url', serving.url, '--json'], { TOLLGATE_ADMIN_TOKEN: reader })
    expect(shown.code).toBe(0)
    expect(shown.json().routes.map((route: { route: string }) => route.route)).toContain('mock/mock-1')
  } finally {
    serving.process.kill('SIGTERM')
  }
}, 60_000)
