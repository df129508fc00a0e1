import { afterAll, expect, test } from 'bun:test'
import { readFileSync, writeFileSync } from 'node:fs'
import { makeWorkspace, runCli, startServe } from './support/cli.ts'

/**
 * SIGHUP (and `tollgate reload`) re-reads the config without a restart: new models and prices serve new requests at
 * once, a stream in flight finishes as it began, and a config that does not load is refused with the old one kept.
 */
const cli = ['bun', 'src/main.ts']
const servers: { process: { kill(signal?: number | NodeJS.Signals): void } }[] = []
afterAll(() => servers.forEach((server) => server.process.kill('SIGKILL')))

const models = (extra = '') => `providers:
  - { name: mock, type: mock, chunk_delay_ms: 40 }
models:
  - { id: mock-1, provider: mock, price: { input: 1, output: 2 } }
${extra}`

function ask(url: string, secret: string, model: string, stream = false) {
  return fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, stream, messages: [{ role: 'user', content: 'tell me a long story about rivers and valleys' }] }),
  })
}

async function until(probe: () => Promise<boolean>, what: string): Promise<void> {
  for (let tries = 0; tries < 100; tries++) {
    if (await probe()) return
    await Bun.sleep(50)
  }
  throw new Error(`timed out waiting for ${what}`)
}

test('SIGHUP and `tollgate reload` apply a new config with a stream in flight; a broken config is refused', async () => {
  const { config } = makeWorkspace(models())
  const run = (...args: string[]) => runCli(cli, [...args, '--config', config])
  expect(run('migrate').code).toBe(0) // only serve and migrate create a database
  expect(run('account', 'create', 'acme', '--balance', '10').code).toBe(0)
  const secret = run('key', 'create', '--account', 'acme', '--json').json().key as string
  const server = await startServe(cli, config)
  servers.push(server)

  expect((await ask(server.url, secret, 'mock-2')).status).toBe(404)
  const inFlight = await ask(server.url, secret, 'mock-1', true)
  const reader = inFlight.body!.getReader()
  await reader.read() // the stream has begun

  writeFileSync(
    config,
    readFileSync(config, 'utf8').replace(models(), models('  - { id: mock-2, provider: mock, price: { input: 3, output: 4 } }\n')),
  )
  expect(run('reload').code).toBe(0)
  await until(async () => (await ask(server.url, secret, 'mock-2')).status === 200, 'mock-2 to be served')

  // The stream that began before the reload ends as it began.
  let text = ''
  for (let next = await reader.read(); !next.done; next = await reader.read()) text += new TextDecoder().decode(next.value)
  expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true)

  // A config that does not load is refused; the running one stays.
  writeFileSync(config, readFileSync(config, 'utf8').replace('price: { input: 3, output: 4 }', 'price: { input: -3, output: 4 }'))
  server.process.kill('SIGHUP')
  await until(async () => server.output().includes('config reload refused'), 'the refusal in the log')
  expect((await ask(server.url, secret, 'mock-2')).status).toBe(200)
}, 30_000)
