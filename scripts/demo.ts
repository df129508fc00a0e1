/**
 * The quickstart: start Tollgate on its built-in defaults (the mock provider) with a database of its own in
 * ./data/demo, make sure a demo account with a key exists, stream one answer through it, print how to use it, and keep
 * serving until Ctrl-C. A tollgate.yaml in the folder, TOLLGATE_CONFIG and TOLLGATE_DATABASE play no part: the demo's
 * account and keys never end up in the set-up that "Running it for real" makes. PORT and HOST still apply.
 */
import { loadConfig } from '../src/config/load.ts'
import { formatUsd, parseUsd } from '../src/core/money.ts'
import { createAccount } from '../src/domain/accounts.ts'
import { createKey } from '../src/domain/keys.ts'
import { startGateway } from '../src/gateway.ts'
import { createLogger } from '../src/edge/logger.ts'
import { applyLaunchEnvironment, upstreamConnections } from '../src/cli/launch-environment.ts'

const database = 'sqlite:./data/demo/tollgate.db'
const config = loadConfig({ builtIn: true, env: { ...process.env, TOLLGATE_DATABASE: database } })
// As `serve` does: the process restarts itself once so that Bun's fetch may run that many upstream requests at once.
const notApplied = await applyLaunchEnvironment(config.limits.upstreamConnections)
if (notApplied)
  console.warn(`limits.upstream_connections not applied (${notApplied}): at most ${upstreamConnections()} upstream requests at once`)
const gateway = await startGateway(config, createLogger('warn'))
const { store } = gateway.services
const account = (await store.accounts.findByName('demo')) ?? (await createAccount(store.accounts, 'demo', parseUsd('10'), 'demo'))
const { secret } = await createKey(store.keys, { accountId: account.id, name: 'demo' })
const model = config.models[0]!.id

console.log(
  `Tollgate is listening on ${gateway.url} (config: ${config.source}, database: ${config.database}, upstream connections: ${upstreamConnections()})`,
)
console.log(`Demo account "demo" has $${formatUsd(account.balance)}; a new key for it:\n\n  export KEY=${secret}\n`)
console.log(`Streaming a first answer from ${model}:\n`)

const response = await fetch(`${gateway.url}/v1/chat/completions`, {
  method: 'POST',
  headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
  body: JSON.stringify({ model, stream: true, messages: [{ role: 'user', content: 'Hello, Tollgate!' }] }),
})
process.stdout.write('  ')
for await (const line of response.body!.pipeThrough(new TextDecoderStream())) {
  for (const match of line.matchAll(/"content":"((?:[^"\\]|\\.)*)"/g)) process.stdout.write(JSON.parse(`"${match[1]}"`))
}
await gateway.services.ledger.drain()
const after = (await store.accounts.findById(account.id))!
console.log(`\n\nThat answer cost $${formatUsd(account.balance - after.balance)}; balance now $${formatUsd(after.balance)}.`)
// Before the last line is printed: whoever waits for it (a person, a test) may press Ctrl-C from then on.
process.on('SIGINT', async () => {
  await gateway.stop(2000)
  process.exit(0)
})
console.log(`\nTry it yourself (Ctrl-C here stops the gateway; its data stays in ./data/demo):\n
  curl -N ${gateway.url}/v1/chat/completions -H "Authorization: Bearer $KEY" \\
    -d '{"model":"${model}","stream":true,"messages":[{"role":"user","content":"Hi"}]}'
  TOLLGATE_DATABASE=${database} bun src/main.ts usage --account demo\n`)
