import type { Config } from './config/types.ts'
import { createApp } from './app.ts'
import { protocolRoutes } from './protocols/routes.ts'
import { maxBodyBytes } from './edge/body-size.ts'
import { loadTokenizer } from './core/estimate.ts'
import type { Logger } from './core/logger.ts'
import { Relay } from './relay/relay.ts'
import { defaultSpoolDir, openStore } from './db/open.ts'
import { FileSpool } from './db/bill-spool.ts'
import { reportFailure } from './core/report-failure.ts'
import { KeyCache } from './domain/key-cache.ts'
import { type KeyChangeListener, KeyService } from './domain/key-service.ts'
import { BudgetService } from './domain/budgets/service.ts'
import { Ledger } from './domain/ledger.ts'
import { createProviders, refuseUnservedModels } from './providers/registry.ts'
import type { Services } from './edge/services.ts'
import { SharedState } from './db/redis/shared-state.ts'
import { TaskService } from './domain/tasks/service.ts'
import { TaskRunner } from './tasks/runner.ts'
import { batchConfigOf, createBatchRelay } from './tasks/batch-relay.ts'
import { batchCodecs } from './tasks/codecs.ts'
import { taskResultLines } from './tasks/results.ts'
import { UsageFolder } from './domain/usage-folder.ts'
import { AuditRetention } from './domain/audit/retention.ts'
import { OtlpExporter } from './edge/otlp-exporter.ts'
import { sweepOrphanedUploads } from './edge/upload-spool.ts'
import { deepenListenBacklog } from './edge/listen-backlog.ts'
import { createAlerting } from './edge/alerting.ts'
import { Tracer } from './relay/tracing.ts'
import type { RouteChange } from './relay/route-health.ts'
import type { TaskRecord } from './domain/tasks/records.ts'
import packageJson from '../package.json' with { type: 'json' }

export interface Gateway {
  services: Services
  server: ReturnType<typeof Bun.serve>
  url: string
  /** How many new connections may wait to be accepted (listen-backlog.ts): the kernel's most, or Bun's 512. */
  listenBacklog: number
  /** Stop accepting, let requests in flight finish (up to `drainMs`), write every pending usage row, close. */
  stop(drainMs?: number): Promise<void>
  /**
   * Apply a re-read config without a restart (SIGHUP, `tollgate reload`): providers, models, prices, routes, fallbacks
   * and per-request routing settings take effect for new requests; requests in flight finish as they began. Returns
   * the changed settings that only a restart applies (they keep their old values until then).
   */
  reload(next: Config): string[]
}

/** Settings read once at start: the listening socket, the stores, the breaker's window, shutdown and logging. */
const restartOnly = ['listen', 'database', 'redis', 'shutdown', 'log', 'retention', 'telemetry', 'tasks', 'ledger'] as const
const restartOnlyRouting = ['windowS', 'minRequests', 'failureRatio', 'cooldownS'] as const
const restartOnlyWebhooks = ['timeoutMs', 'pollMs', 'firstRetryMs', 'expiryCheckS'] as const

function restartNeeded(current: Config, next: Config): string[] {
  const changed: string[] = restartOnly.filter((field) => JSON.stringify(current[field]) !== JSON.stringify(next[field]))
  for (const field of restartOnlyRouting) if (current.routing[field] !== next.routing[field]) changed.push(`routing.${field}`)
  // Webhooks' timers and timeouts are set at start; whether private receivers are allowed is read at each use.
  for (const field of restartOnlyWebhooks) if (current.webhooks[field] !== next.webhooks[field]) changed.push(`webhooks.${field}`)
  // Bun reads its fetch ceiling once, at the process's start (cli/upstream-connections.ts).
  if (current.limits.upstreamConnections !== next.limits.upstreamConnections) changed.push('limits.upstream_connections')
  return changed
}

/** What the gateway runs besides the services its routes see: started after the server listens, stopped at its stop. */
interface Background {
  runner: TaskRunner
  batchRelay: Relay
  folder: UsageFolder
  auditRetention: AuditRetention
  spool: FileSpool
}

/** Build everything a config needs, in order, except the listening socket (the services are completed with it). */
async function buildParts(
  config: Config,
  current: () => Config,
  logger: Logger,
): Promise<{ services: Omit<Services, 'server'>; background: Background }> {
  refuseUnservedModels(config) // before anything is opened: a config that cannot serve its models does not start
  // SQLite: takes the file's serve lock, or throws DatabaseInUseError when another server holds it.
  const store = openStore(config.database, {
    serving: true,
    logger,
    instance: { heartbeatMs: config.ledger.heartbeatMs, timeoutMs: config.ledger.instanceTimeoutMs, logger },
  })
  await store.migrate()
  // Holds whose owner is provably gone were left by a crash: give that money back (LedgerRepository.startServing).
  // Holds from before PostgreSQL instances were recorded have no owner: those older than the longest possible request.
  const longest = Math.max(...config.providers.map((provider) => provider.timeouts.totalMs)) + 60_000
  const released = await store.ledger.startServing(Date.now() - longest)
  if (released > 0) logger.warn({ released }, 'released holds left by an earlier crash')
  const keys = new KeyCache(store.keys, { logger })
  await keys.start()
  // Bills wait in the spool while the database does not answer; those a crash left there are replayed first.
  const spool = new FileSpool(config.ledger.spoolDir ?? defaultSpoolDir(config.database))
  // Alerts watch committed settlements (a balance falling below a webhook's amount), never a request in flight.
  const alerting = createAlerting(store, config.webhooks, current, logger)
  const ledger = new Ledger(store.ledger, {
    spool,
    logger,
    writeTimeoutMs: config.ledger.writeTimeoutMs,
    onError: (error) => reportFailure(logger, error, { route: 'ledger' }),
    onWritten: (batch) => alerting.ledgerWritten(batch),
  })
  const spooled = spool.stats().entries
  await ledger.replaySpool()
  if (spooled > 0)
    logger.warn({ replayed: spooled - spool.stats().entries, left: spool.stats().entries }, 'replayed bills a crash left in the spool')
  // With Redis, instances share limits, the sign-in throttle, key changes and route health; without it each keeps its own.
  const shared = config.redis === undefined ? undefined : new SharedState(config.redis, logger)
  const providers = createProviders(config.providers, { upstreamConnections: config.limits.upstreamConnections })
  // Traces only when a collector is configured; without one the relay has no tracer and makes no span at all.
  const telemetry = config.telemetry && new OtlpExporter(config.telemetry, logger, packageJson.version)
  const tracer = telemetry && new Tracer(telemetry, config.telemetry!.sampleRatio)
  // With Redis, the breaker tells its own route changes to the others and claims half-open probes there.
  const sharedRoutes = shared && {
    onChange: (change: RouteChange) => {
      shared.announce('routes', change)
      shared.routes.record(change)
    },
    probeSlot: shared.routes,
  }
  const relay = new Relay({ config, providers, ledger, logger, limiter: shared?.limiter, tracer, sharedRoutes })
  // A key change counts on this instance before its answer is sent, and is announced to the others (Redis).
  const keyListeners: KeyChangeListener[] = [(change) => keys.remember(change.after)]
  if (shared) keyListeners.push((change) => shared.announce('keys', change.after.id))
  // The models as they stand at each change: the relay's, which a reload replaces.
  const configuredModels = () => relay.modelIds()
  const keyService = new KeyService({
    repository: store.keys,
    listeners: keyListeners,
    logger,
    configuredModels,
    findProject: (id) => store.budgets.findProject(id),
  })
  // A project or budget change marks its keys changed: read here at once, and at once by the others when told (Redis).
  const budgetService = new BudgetService({
    repository: store.budgets,
    keys: store.keys,
    configuredModels,
    changed: async () => {
      await keys.refresh()
      shared?.announce('budgets', null)
    },
  })
  if (shared) {
    shared.listen<string>('keys', (keyId) => keys.reload(keyId))
    shared.listen<null>('budgets', () => keys.refresh())
    shared.listen<unknown>('routes', (change) => relay.breaker.adopt(change))
    await shared.start()
    // Routes the running instances found down are skipped here from the start, not found down once more.
    for (const change of await shared.routes.openRoutes()) relay.breaker.adopt(change)
  }
  // Rows a crash left half-written or half-deleted (SQLite writes a batch in slices): cleared before anyone can ask.
  const leftovers = await store.tasks.removeLeftovers()
  if (leftovers > 0) logger.warn({ rows: leftovers }, 'removed batch rows left half-written by an earlier crash')
  // A file's line is one request: no longer than a live request's body (edge/body-size.ts).
  const tasks = new TaskService(store.tasks, Date.now, {
    ...config.tasks,
    windowMs: config.tasks.windowS * 1000,
    maxLineBytes: maxBodyBytes,
  })
  // Batch items run through a relay of their own, priced at batch prices, sharing the live one's limits and health.
  const batchRelay = createBatchRelay(config, relay, providers, ledger, logger)
  const runner = new TaskRunner({
    tasks,
    relay: batchRelay,
    keys: store.keys,
    codecs: batchCodecs,
    config: config.tasks,
    logger,
    singleServer: store.dialect === 'sqlite',
  })
  // Old usage rows folded into daily totals (retention.requests_days), from a timer: disk stays bounded.
  const folder = new UsageFolder(store.usage, { requestsDays: config.retention.requestsDays, logger })
  // Audit rows past retention.audit_days (by default none: they are kept forever).
  const auditRetention = new AuditRetention(store.audit, { auditDays: config.retention.auditDays, logger })
  const services = {
    config,
    store,
    keys,
    keyService,
    budgetService,
    ledger,
    alerting,
    relay,
    tasks,
    logger,
    shared,
    signInFailures: shared?.signInFailures,
    telemetry,
    taskResults: (task: TaskRecord) => taskResultLines(tasks, task),
    unknownKeyLookups: new Map<string, number>(),
  }
  return { services, background: { runner, batchRelay, folder, auditRetention, spool } }
}

export async function startGateway(config: Config, logger: Logger): Promise<Gateway> {
  // A reload replaces the config the services read (`current`), not a field of them.
  let current = config
  const { services: parts, background } = await buildParts(config, () => current, logger)
  await loadTokenizer() // before listening: loading it later would stall every request in flight (estimate.ts)
  await sweepOrphanedUploads(undefined, logger) // what a crashed process left in the temp folder (upload-spool.ts)
  // The socket first, with no handler yet: the services hold it (only it knows a request's peer, client-address.ts),
  // and the routes are built from the services. Handed over below in the same tick, so no request meets the stand-in.
  const server = Bun.serve({
    hostname: config.listen.host,
    port: config.listen.port,
    fetch: notReadyYet,
    // Bun answers a body over this with an empty 413 no SDK can explain: the gateway's own limit, below it, answers
    // in the caller's protocol (edge/front-door.ts readBody); this one only stops what would not be refused before it is read.
    // An uploaded batch file (POST /v1/files, streamed) may be up to tasks.max_file_bytes, plus its form's fields.
    maxRequestBodySize: Math.max(2 * maxBodyBytes, config.tasks.maxFileBytes + 1024 * 1024),
    // Long generations stream for minutes; Bun's default 10 s idle timeout would cut them.
    idleTimeout: 255,
  })
  // Built once and frozen; a reload replaces the config it reads (`current`), not a field of it.
  const services: Services = Object.freeze({
    ...parts,
    server,
    get config() {
      return current
    },
  })
  try {
    // One table of protocol routes, served by Bun's own router and mounted in Elysia alike (protocols/routes.ts).
    const routes = protocolRoutes(services)
    server.reload({ routes, fetch: createApp(services, routes).fetch })
  } catch (error) {
    server.stop(true)
    throw error
  }
  const listenBacklog = deepenListenBacklog(server.port ?? 0, logger) ?? 512
  const { runner, batchRelay, folder, auditRetention, spool } = background
  await runner.start()
  folder.start()
  auditRetention.start()
  await services.alerting.start()
  const url = `http://${server.hostname === '::' ? '127.0.0.1' : server.hostname}:${server.port}`
  return {
    services,
    server,
    url,
    listenBacklog,
    reload(next) {
      refuseUnservedModels(next)
      const needsRestart = restartNeeded(services.config, next)
      const providers = createProviders(next.providers, { upstreamConnections: next.limits.upstreamConnections })
      services.relay.reconfigure(next, providers)
      batchRelay.reconfigure(batchConfigOf(next), providers)
      current = next
      return needsRestart
    },
    async stop(drainMs = config.shutdown.drainS * 1000) {
      const { relay } = services
      // Stop accepting at once; requests in flight (streams included) run on until they end or the deadline.
      // Batch items stop starting; those running finish (each billed) or, past the deadline, are ended and settle.
      const drained = Promise.all([server.stop(false), relay.idle(), runner.stop(drainMs)])
      let deadline: ReturnType<typeof setTimeout> | undefined
      const late = await Promise.race([
        drained.then(() => false),
        new Promise<boolean>((resolve) => (deadline = setTimeout(resolve, drainMs, true))),
      ])
      clearTimeout(deadline)
      if (late) {
        // Past the deadline: end what is left; each request still settles, so its usage is written below.
        logger.warn({ in_flight: relay.inFlight, drain_ms: drainMs }, 'drain deadline passed: ending requests in flight')
        relay.abortInFlight()
        await Promise.race([relay.idle(), Bun.sleep(5000)])
      }
      server.stop(true)
      await folder.stop()
      await auditRetention.stop()
      services.keys.stop()
      services.shared?.stop()
      await services.ledger.drain()
      services.ledger.stop()
      // After the last bills: a balance they took below a webhook's amount is still decided and stored.
      await services.alerting.stop()
      await spool.close()
      await services.telemetry?.stop()
      await services.store.close()
    },
  }
}

/** The handler the socket is opened with, replaced before the event loop can deliver a request to it. */
function notReadyYet(): Response {
  return new Response('starting', { status: 503 })
}
