import type { Config } from '../config/types.ts'
import { startGateway } from '../gateway.ts'
import { createLogger } from '../edge/logger.ts'
import { pidFileOf, removePidFile, writePidFile } from './pid-file.ts'
import { describeDatabase } from '../db/open.ts'
import { ceilingVariable, memoryPurgeDelay, upstreamConnections } from './launch-environment.ts'
import { takeReloadRequester } from './reload.ts'
import { cliActor, systemActor } from '../domain/actor.ts'
import { configReloadEntry } from '../domain/audit/settings.ts'
import type { AuditEntry } from '../domain/audit/records.ts'
import { reportFailure } from '../core/report-failure.ts'

/**
 * Run until SIGTERM/SIGINT, then drain: stop accepting, finish what is in flight, write all usage, exit 0. SIGHUP
 * re-reads the config through `reread` and applies it without dropping a request; a config that does not load is
 * refused with a log line and the running one stays.
 */
export async function runServe(config: Config, reread: () => Config, ceilingNotApplied?: string): Promise<void> {
  const logger = createLogger(config.log.level)
  if (ceilingNotApplied) {
    logger.warn(
      { wanted: config.limits.upstreamConnections, upstream_connections: upstreamConnections(), reason: ceilingNotApplied },
      `limits.upstream_connections not applied: start tollgate with ${ceilingVariable}=${config.limits.upstreamConnections} in its environment`,
    )
  }
  const gateway = await startGateway(config, logger)
  let stopping = false
  const shutdown = async (signal: string) => {
    if (stopping) return
    stopping = true
    // Keep the process alive until the end: once the server has stopped, nothing else may hold the event loop (the
    // checkpoint worker is unref'd), and the process exited mid-shutdown, before its last log line was written.
    const keepAlive = setInterval(() => {}, 60_000)
    logger.info({ signal, drain_s: config.shutdown.drainS }, 'shutting down: draining requests in flight')
    await gateway.stop()
    removePidFile(pidFileOf(config))
    logger.info({}, 'stopped; all usage written')
    await logger.flush()
    // No process.exit: it could cut the log's last write, still in flight on another thread (the line was lost about
    // one shutdown in five). The process ends by itself once that write is done; a handle something forgot to close
    // cannot keep it up past two seconds.
    clearInterval(keepAlive)
    process.exitCode = 0
    setTimeout(() => process.exit(0), 2000).unref()
  }
  process.on('SIGHUP', () => {
    let entry: AuditEntry
    try {
      const previous = gateway.services.config
      const next = reread()
      const needsRestart = gateway.reload(next)
      logger.info(
        {
          config: next.source,
          models: next.models.map((model) => model.id),
          restart_needed_for: needsRestart.length ? needsRestart : undefined,
        },
        'config reloaded',
      )
      const requester = takeReloadRequester(pidFileOf(config))
      entry = configReloadEntry(
        requester ? cliActor(requester) : systemActor('signal:SIGHUP'),
        next.source,
        previous,
        next,
        needsRestart,
        Date.now(),
      )
    } catch (error) {
      logger.error({ error: (error as Error).message }, 'config reload refused: the running config stays')
      return
    }
    // The reload changed no stored row, so its audit row is written after it: the database may be away meanwhile.
    gateway.services.store.audit.record(entry).catch((error: unknown) => reportFailure(logger, error, { route: 'config reload audit row' }))
  })
  // `tollgate reload` finds this process here. Under systemd the config folder is read-only (ProtectSystem): there
  // ExecReload signals $MAINPID instead, so a pid file that cannot be written is only worth a note.
  try {
    writePidFile(pidFileOf(config))
  } catch (error) {
    logger.info(
      { pid_file: pidFileOf(config), error: (error as Error).message },
      'no pid file: reload with kill -HUP <pid> (systemctl reload)',
    )
  }
  process.on('SIGTERM', () => void shutdown('SIGTERM'))
  process.on('SIGINT', () => void shutdown('SIGINT'))
  // Said last: whoever waits for this line (systemd, tests) may signal the process from then on.
  logger.info(
    {
      url: gateway.url,
      config: config.source,
      database: describeDatabase(config.database),
      models: config.models.map((model) => model.id),
      // Upstream requests at once; more wait in Bun's queue (limits.upstream_connections, changed by a restart).
      upstream_connections: upstreamConnections(),
      // When freed memory goes back to the system (-1: kept for reuse; launch-environment.ts).
      memory_purge_delay: memoryPurgeDelay(),
      // New connections that may wait to be accepted (Bun's own is 512: a larger burst would be dropped and retried).
      listen_backlog: gateway.listenBacklog,
    },
    'tollgate listening',
  )
}
