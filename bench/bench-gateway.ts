// The gateway every benchmark loads: full path (auth, model check, hold + settle, usage record) over a temp SQLite
// file, an OpenAI-compatible route to `upstreamUrl` (bench-model, passthrough) and an Anthropic one (bench-translated),
// and an account rich enough never to run dry.
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseConfig } from '../src/config/load.ts'
import { silentLogger } from '../src/core/logger.ts'
import { parseUsd } from '../src/core/money.ts'
import { createAccount } from '../src/domain/accounts.ts'
import { createKey } from '../src/domain/keys.ts'
import { systemActor } from '../src/domain/actor.ts'
import { startGateway } from '../src/gateway.ts'

/**
 * `BENCH_DATABASE` (a postgres:// URL) serves from PostgreSQL instead of the temp SQLite file.
 * `BENCH_REDIS` (a redis:// URL) shares key limits through Redis; `BENCH_RPM` gives the key an rpm limit (high enough
 * never to refuse) so that admission does its counting — in memory, or in Redis with BENCH_REDIS. `BENCH_OTLP` (an
 * OTLP/HTTP endpoint) traces every request to it. `BENCH_BUDGETS` puts the key under three budgets (its account's by
 * month, its project's by 5h window, its own by day; none ever reached): what budgets cost a request. `BENCH_CLIENT`
 * (`fetch` or `auto`) sets the providers' `client`: Bun's fetch, or the own HTTP/1.1 client for http:// upstreams.
 * `BENCH_TENANTS` (a count, default 1) makes that many accounts with a key each (`secrets`, in order; `secret` is the
 * first's): a load spread over them writes usage rows, leases and key rows where many tenants' would land, not all at
 * one place (the rpm limit applies to each; the budgets to the first only).
 */
export async function startBenchGateway(upstreamUrl: string, env: Record<string, string | undefined> = process.env) {
  const client = env.BENCH_CLIENT ? { client: env.BENCH_CLIENT } : {}
  const directory = mkdtempSync(join(tmpdir(), 'tollgate-bench-'))
  const config = parseConfig(
    {
      listen: { host: '127.0.0.1', port: 0 },
      database: env.BENCH_DATABASE ?? `sqlite:${join(directory, 'bench.db')}`,
      ...(env.BENCH_REDIS ? { redis: env.BENCH_REDIS } : {}),
      ...(env.BENCH_OTLP ? { telemetry: { otlp_endpoint: env.BENCH_OTLP } } : {}),
      providers: [
        { name: 'up', type: 'openai', base_url: `${upstreamUrl}/v1`, ...client },
        { name: 'up-anthropic', type: 'anthropic', base_url: upstreamUrl, ...client },
      ],
      models: [
        { id: 'bench-model', provider: 'up', upstream_model: 'bench-upstream', price: { input: 1.25, output: 10 }, max_output_tokens: 256 },
        // Chat Completions in, Anthropic Messages upstream: the translated route (every event decoded and re-encoded).
        {
          id: 'bench-translated',
          provider: 'up-anthropic',
          upstream_model: 'bench-upstream',
          price: { input: 1.25, output: 10 },
          max_output_tokens: 256,
        },
        { id: 'bench-embed', kind: 'embedding', provider: 'up', upstream_model: 'bench-embed-upstream', price: { input: 0.02 } },
        { id: 'bench-tts', kind: 'speech', provider: 'up', upstream_model: 'bench-tts-upstream', price: { characters: 15 } },
        { id: 'bench-rerank', kind: 'rerank', provider: 'up', upstream_model: 'bench-rerank-upstream', price: { input: 0.02 } },
        {
          id: 'bench-image',
          kind: 'image',
          provider: 'up',
          upstream_model: 'bench-image-upstream',
          price: { images: { '256x256': 0.016 } },
        },
      ],
    },
    'bench',
  )
  const gateway = await startGateway(config, silentLogger)
  const rpm = env.BENCH_RPM ? Number(env.BENCH_RPM) : null
  const secrets: string[] = []
  for (let tenant = 0; tenant < Math.max(1, Number(env.BENCH_TENANTS ?? 1)); tenant++) {
    const account = await createAccount(
      gateway.services.store.accounts,
      `bench-${crypto.randomUUID().slice(0, 8)}`,
      parseUsd('1000000'),
      'bench',
    )
    const budgeted = env.BENCH_BUDGETS && tenant === 0 ? await underThreeBudgets(gateway, account.id) : {}
    const { secret, record } = await createKey(gateway.services.store.keys, { accountId: account.id, rpm, ...budgeted })
    if (budgeted.projectId !== undefined) {
      await gateway.services.budgetService.createBudget(
        { accountId: account.id, scope: 'key', keyId: record.id, amount: parseUsd('100000'), period: 'day' },
        systemActor('bench'),
      )
    }
    secrets.push(secret)
  }
  return { gateway, secret: secrets[0]!, secrets }
}

async function underThreeBudgets(gateway: Awaited<ReturnType<typeof startGateway>>, accountId: number): Promise<{ projectId?: number }> {
  const service = gateway.services.budgetService
  const actor = systemActor('bench')
  const project = await service.createProject({ accountId, name: 'bench' }, actor)
  await service.createBudget({ accountId, scope: 'account', amount: parseUsd('100000'), period: 'month', timeZone: 'Europe/Berlin' }, actor)
  await service.createBudget({ accountId, scope: 'project', projectId: project.id, amount: parseUsd('100000'), period: '5h' }, actor)
  return { projectId: project.id }
}
