import { afterAll, describe, expect, test } from 'bun:test'
import OpenAI from 'openai'
import { makeWorkspace, runCli, startServe } from './support/cli.ts'

const cli = ['bun', 'src/main.ts']
const { config } = makeWorkspace()
const run = (...args: string[]) => runCli(cli, [...args, '--config', config])
let server: Awaited<ReturnType<typeof startServe>> | undefined

afterAll(() => server?.process.kill('SIGTERM'))

describe('operator CLI against a running gateway', () => {
  let key: { id: string; key: string }

  test('account create / credit / show speak exact decimal dollars', () => {
    expect(run('migrate').code).toBe(0) // only serve and migrate create a database
    const created = run('account', 'create', 'acme', '--balance', '10', '--json')
    expect(created.code).toBe(0)
    expect(created.json()).toMatchObject({ name: 'acme', balance_usd: '10.00' })
    expect(run('account', 'credit', 'acme', '0.000000001', '--json').json().balance_usd).toBe('10.000000001')
    expect(run('account', 'credit', 'acme', '-0.000000001', '--json').json().balance_usd).toBe('10.00')
    expect(run('account', 'show', 'acme', '--json').json().balance_usd).toBe('10.00')
    expect(run('account', 'create', 'acme').code).not.toBe(0)
    expect(run('account', 'show', 'nobody').stderr).toContain('does not exist')
    expect(run('account', 'credit', 'acme', '1.0000000001').stderr).toContain('more than 9 decimals')
  })

  test('key create shows the secret once; key list never does', () => {
    const created = run('key', 'create', '--account', 'acme', '--name', 'laptop', '--models', 'mock-1', '--json')
    expect(created.code).toBe(0)
    key = created.json()
    expect(key.key).toMatch(/^tg-[0-9A-Za-z]{40}$/)
    const listed = run('key', 'list', '--account', 'acme', '--json')
    expect(listed.stdout).not.toContain(key.key)
    expect(listed.json()[0]).toMatchObject({ id: key.id, name: 'laptop', models: ['mock-1'], status: 'active' })
    expect(run('key', 'create', '--account', 'acme', '--models', 'no-such-model').stderr).toContain('unknown model')
  })

  test('the SDK works with the key, and usage/spend show up per key and per account', async () => {
    server = await startServe(cli, config)
    const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: key.key, maxRetries: 0 })
    const completion = await client.chat.completions.create({ model: 'mock-1', messages: [{ role: 'user', content: 'bill me' }] })
    const usage = completion.usage!
    await Bun.sleep(200) // settlements are batched every few milliseconds
    const byKey = run('usage', '--key', key.id, '--json').json()
    expect(byKey).toMatchObject({ requests: 1, input_tokens: usage.prompt_tokens, output_tokens: usage.completion_tokens })
    // $1.25 per 1M input tokens = 1250 nano-dollars per token; $10 per 1M output = 10000
    const spent = usage.prompt_tokens * 1250 + usage.completion_tokens * 10_000
    expect(byKey.spent_usd).toBe(`0.${String(spent).padStart(9, '0')}`.replace(/0+$/, ''))
    expect(run('usage', '--account', 'acme', '--json').json().spent_usd).toBe(byKey.spent_usd)
    const balance = run('account', 'show', 'acme', '--json').json().balance_usd
    expect(balance).toBe(`9.${String(1_000_000_000 - spent).padStart(9, '0')}`.replace(/0+$/, ''))
  })

  test('a key created by the CLI while serve runs works at once', async () => {
    const fresh = run('key', 'create', '--account', 'acme', '--json').json()
    const client = new OpenAI({ baseURL: `${server!.url}/v1`, apiKey: fresh.key, maxRetries: 0 })
    expect((await client.models.list()).data.length).toBe(2)
  })

  test('a key revoked by the CLI while serve runs is refused within a second', async () => {
    const client = new OpenAI({ baseURL: `${server!.url}/v1`, apiKey: key.key, maxRetries: 0 })
    await client.models.list() // cached as valid
    expect(run('key', 'revoke', key.id, '--json').json().status).toBe('revoked')
    await Bun.sleep(1000)
    const failure = await client.models.list().catch((error: unknown) => error)
    expect(failure).toBeInstanceOf(OpenAI.AuthenticationError)
  })
})

describe('config errors are clear and name the field', () => {
  test('a bad price names models[0].price.output', () => {
    const bad = makeWorkspace('providers: [{ name: m, type: mock }]\nmodels: [{ id: x, provider: m, price: { input: 1, output: -2 } }]\n')
    const result = runCli(cli, ['account', 'list', '--config', bad.config])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('models[0].price.output')
  })

  test('an unknown provider and a missing env var are named', () => {
    const unknown = makeWorkspace(
      'providers: [{ name: m, type: mock }]\nmodels: [{ id: x, provider: nope, price: { input: 1, output: 2 } }]\n',
    )
    expect(runCli(cli, ['account', 'list', '--config', unknown.config]).stderr).toContain(
      'models[0].provider: "nope" is not a configured provider',
    )
    const env = makeWorkspace('providers: [{ name: m, type: openai, api_key: "${TOLLGATE_TEST_UNSET_VAR}" }]\nmodels: []\n')
    expect(runCli(cli, ['account', 'list', '--config', env.config]).stderr).toContain(
      'providers[0].api_key: environment variable TOLLGATE_TEST_UNSET_VAR is not set',
    )
  })
})
