import { afterAll, expect, test } from 'bun:test'
import { makeWorkspace, runCli, startServe } from './support/cli.ts'
import { faultyUsage, startFaultyUpstream } from './support/faulty-upstream.ts'

const cli = ['bun', 'src/main.ts']
const upstream = startFaultyUpstream()
afterAll(() => upstream.stop())

const answer = 'One two three four five six seven eight nine ten'

function workspace(drainS: number) {
  const { config } = makeWorkspace(`shutdown: { drain_s: ${drainS} }
providers:
  - { name: up, type: openai, base_url: "${upstream.url}/v1" }
models:
  - { id: slow, provider: up, upstream_model: u, price: { input: 1, output: 2 } }
`)
  const run = (...args: string[]) => runCli(cli, [...args, '--config', config])
  expect(run('migrate').code).toBe(0) // only serve and migrate create a database
  expect(run('account', 'create', 'acme', '--balance', '10').code).toBe(0)
  return { config, run, secret: run('key', 'create', '--account', 'acme', '--json').json().key as string }
}

function ask(url: string, secret: string, stream: boolean) {
  return fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'slow', stream, messages: [{ role: 'user', content: 'count to ten' }] }),
  })
}

/** Read a streamed answer to its end; resolves its text once the first chunk has come (`started`). */
function follow(response: Response) {
  const reader = response.body!.getReader()
  let markStarted = () => {}
  const started = new Promise<void>((resolve) => (markStarted = resolve))
  const done = (async () => {
    let text = ''
    while (true) {
      const { value, done } = await reader.read()
      if (done) return text
      text += new TextDecoder().decode(value)
      markStarted()
    }
  })()
  return { started, done }
}

async function refusesConnections(url: string): Promise<boolean> {
  for (let tries = 0; tries < 100; tries++) {
    try {
      await fetch(`${url}/healthz`)
    } catch {
      return true
    }
    await Bun.sleep(20)
  }
  return false
}

test('SIGTERM: stop accepting, let streams and whole answers in flight finish, write all usage, exit 0', async () => {
  const { config, run, secret } = workspace(30)
  upstream.fault = { kind: 'ok', text: answer, delayMs: 80 }
  const server = await startServe(cli, config)
  const streams = await Promise.all(Array.from({ length: 4 }, async () => follow(await ask(server.url, secret, true))))
  await Promise.all(streams.map((stream) => stream.started))
  const before = upstream.requests.length
  const wholes = Array.from({ length: 2 }, () => ask(server.url, secret, false))
  while (upstream.requests.length < before + 2) await Bun.sleep(5)

  server.process.kill('SIGTERM')
  expect(await refusesConnections(server.url)).toBe(true)
  for (const text of await Promise.all(streams.map((stream) => stream.done))) {
    const words = [...text.matchAll(/"content":"([^"]*)"/g)].map((match) => match[1]).join('')
    expect(words).toBe(answer)
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true)
  }
  for (const response of await Promise.all(wholes)) expect((await response.json()).choices[0].message.content).toBe(answer)
  expect(await server.process.exited).toBe(0)

  const usage = run('usage', '--json').json()
  expect(usage.requests).toBe(6)
  expect(usage.input_tokens).toBe(6 * faultyUsage.prompt_tokens)
  expect(usage.output_tokens).toBe(6 * faultyUsage.completion_tokens)
  // 11 input at $1/M + 7 output at $2/M = 25 000 nano-dollars a request.
  expect(usage.spent_usd).toBe('0.00015')
  expect(run('account', 'show', 'acme', '--json').json()).toMatchObject({ balance_usd: '9.99985', reserved_usd: '0.00' })
}, 30_000)

test('SIGTERM past the drain deadline: what is still running ends with an error event, and its usage is still written', async () => {
  const { config, run, secret } = workspace(0.3)
  upstream.fault = { kind: 'ok', text: answer, delayMs: 1000 }
  const server = await startServe(cli, config)
  const stream = follow(await ask(server.url, secret, true))
  await stream.started
  server.process.kill('SIGTERM')
  const text = await stream.done
  expect(text).toContain('"code":"shutting_down"')
  expect(await server.process.exited).toBe(0)
  const usage = run('usage', '--json').json()
  expect(usage.requests).toBe(1)
  expect(run('account', 'show', 'acme', '--json').json().reserved_usd).toBe('0.00')
}, 30_000)

test('the last log line of a shutdown is written before the process exits, every time', async () => {
  const { config } = workspace(1)
  // Several runs: the line used to be lost in three shutdowns of four, the process exiting before the logger wrote.
  for (let run = 0; run < 3; run++) {
    const child = Bun.spawn([...cli, 'serve', '--config', config], { stdout: 'pipe', stderr: 'pipe', stdin: 'ignore' })
    let output = ''
    const reading = (async () => {
      for await (const chunk of child.stdout) output += new TextDecoder().decode(chunk)
    })()
    while (!output.includes('tollgate listening')) await Bun.sleep(10)
    child.kill('SIGTERM')
    expect(await child.exited).toBe(0)
    await reading
    expect(output).toContain('"msg":"stopped; all usage written"')
  }
}, 60_000)
