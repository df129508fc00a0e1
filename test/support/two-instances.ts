import { parseConfig } from '../../src/config/load.ts'
import { silentLogger } from '../../src/core/logger.ts'
import { startGateway, type Gateway } from '../../src/gateway.ts'
import { startTestGateway, type TestGateway } from './gateway.ts'
import { createTestDatabase } from './postgres.ts'
import { startTestRedis, type TestRedis } from './redis.ts'

export interface TwoInstances {
  /** The first instance, with the test account and key helpers. */
  first: TestGateway
  second: Gateway
  /** The redis-server of this test's own (it can be killed and restarted). */
  redis: TestRedis
  stop(): Promise<void>
}

/** Two gateway instances of `config` on one fresh PostgreSQL database and one Redis of their own: "scaling out". */
export async function startTwoInstances(config: Record<string, unknown>): Promise<TwoInstances> {
  const database = await createTestDatabase()
  const redis = await startTestRedis()
  const first = await startTestGateway({ database: database.url, config: { ...config, redis: redis.url } })
  const second = await startGateway(
    parseConfig({ ...config, redis: redis.url, listen: { host: '127.0.0.1', port: 0 }, database: database.url }),
    silentLogger,
  )
  return {
    first,
    second,
    redis,
    async stop() {
      await second.stop(500)
      await first.stop()
      await redis.stop()
      await database.drop()
    },
  }
}
