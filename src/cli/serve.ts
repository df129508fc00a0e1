import type { Config } from '../config/types.ts'
import { startGateway } from '../gateway.ts'
import { createLogger } from '../edge/logger.ts'

/** Run until SIGTERM/SIGINT, then drain: stop accepting, finish what is in flight, write all usage, exit 0. */
export async function runServe(config: Config): Promise<void> {
  const logger = createLogger(config.log.level)
  const gateway = await startGateway(config, logger)
  logger.info({ url: gateway.url, config: config.source, database: config.database.replace(/\/\/[^@]*@/, '//***@'), models: config.models.map((model) => model.id) }, 'tollgate listening')
  let stopping = false
  const shutdown = async (signal: string) => {
    if (stopping) return
    stopping = true
    // Keep the process alive until the end: once the server has stopped, nothing else may hold the event loop (the
    // checkpoint worker is unref'd), and the process exited mid-shutdown, before its last log line was written.
    setInterval(() => {}, 60_000)
    logger.info({ signal, drain_s: config.shutdown.drainS }, 'shutting down: draining requests in flight')
    await gateway.stop()
    logger.info({}, 'stopped; all usage written')
    // Exit only once the log is written (its destination is asynchronous).
    await logger.flush()
    process.exit(0)
  }
  process.on('SIGTERM', () => void shutdown('SIGTERM'))
  process.on('SIGINT', () => void shutdown('SIGINT'))
}
