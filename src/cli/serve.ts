import type { Config } from '../config/types.ts'
import { startGateway } from '../gateway.ts'
import { createLogger } from '../edge/logger.ts'
import { describeDatabase } from '../db/open.ts'

/** Run until SIGTERM/SIGINT, then drain: stop accepting, finish what is in flight, write all usage, exit 0. */
export async function runServe(config: Config): Promise<void> {
  const logger = createLogger(config.log.level)
  const gateway = await startGateway(config, logger)
  logger.info({ url: gateway.url, config: config.source, database: describeDatabase(config.database), models: config.models.map((model) => model.id) }, 'tollgate listening')
  let stopping = false
  const shutdown = async (signal: string) => {
    if (stopping) return
    stopping = true
    logger.info({ signal, drain_s: config.shutdown.drainS }, 'shutting down: draining requests in flight')
    await gateway.stop()
    logger.info({}, 'stopped; all usage written')
    logger.flush()
    process.exit(0)
  }
  process.on('SIGTERM', () => void shutdown('SIGTERM'))
  process.on('SIGINT', () => void shutdown('SIGINT'))
}
