// Tollgate on the full path (auth, model check, hold + settle, usage record) over a temp SQLite file, started with
// the environment `serve` starts with (src/cli/launch-environment.ts: the fetch ceiling the bench asks for, freed
// memory kept for reuse), so that a bench measures Tollgate as it serves.
import { applyLaunchEnvironment } from '../src/cli/launch-environment.ts'
import { startBenchGateway } from './bench-gateway.ts'

const notApplied = await applyLaunchEnvironment(Number(process.env.BUN_CONFIG_MAX_HTTP_REQUESTS ?? 65_535))
if (notApplied) console.error(`bench/tollgate.ts: the launch environment was not applied: ${notApplied}`)

const { gateway, secret, secrets } = await startBenchGateway(process.env.UPSTREAM_URL!)
console.log(JSON.stringify({ url: gateway.url, key: secret, keys: secrets }))
process.on('SIGTERM', async () => {
  await gateway.services.ledger.drain()
  const summary = await gateway.services.store.usage.summarize({})
  console.error(JSON.stringify({ usage_rows: summary.requests }))
  await gateway.stop(1000)
  process.exit(0)
})
// SIGUSR2: a full collection, so that bench/long-streams.ts reads resident memory with no garbage of the warm-up in it.
process.on('SIGUSR2', () => Bun.gc(true))
