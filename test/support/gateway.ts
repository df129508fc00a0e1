import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseConfig } from '../../src/config/load.ts'
import { type Logger, silentLogger } from '../../src/core/logger.ts'
import { parseUsd } from '../../src/core/money.ts'
import type { AccountRecord, KeyRecord } from '../../src/domain/records.ts'
import { createAccount } from '../../src/domain/accounts.ts'
import { createKey, type NewKeyInput } from '../../src/domain/keys.ts'
import { startGateway, type Gateway } from '../../src/gateway.ts'

export interface TestGateway {
  gateway: Gateway
  /** Site root, e.g. http://127.0.0.1:41234 (Anthropic and Gemini clients use this). */
  url: string
  /** `${url}/v1`, what the OpenAI SDK takes as baseURL. */
  baseUrl: string
  account: AccountRecord
  key: string
  keyRecord: KeyRecord
  /** Make another key on the same account (or another one). */
  createKey(input?: Partial<NewKeyInput>): Promise<{ secret: string; record: KeyRecord }>
  createAccount(name: string, balanceUsd: string): Promise<AccountRecord>
  /** Wait until every settlement is written, then read the account again. */
  settled(): Promise<AccountRecord>
  stop(): Promise<void>
}

export interface TestGatewayOptions {
  /** Config document (YAML shape); `listen` and `database` are filled in. Defaults to the mock provider. */
  config?: Record<string, unknown>
  balanceUsd?: string
  keyModels?: string[] | null
  databasePath?: string
  /** A database URL (e.g. PostgreSQL) instead of a temp SQLite file. */
  database?: string
  /** Where the gateway logs (silent by default); tests that check log lines pass a capturing one. */
  logger?: Logger
}

export const mockConfig = {
  providers: [{ name: 'mock', type: 'mock' }],
  models: [
    { id: 'mock-1', provider: 'mock', price: { input: 1, output: 2, cached_input: 0.1 }, max_output_tokens: 4096 },
    { id: 'mock-fast', provider: 'mock', price: { input: 0.1, output: 0.2 }, max_output_tokens: 1024 },
  ],
}

/** A real gateway on a random loopback port with its own SQLite file, an account and a key. */
export async function startTestGateway(options: TestGatewayOptions = {}): Promise<TestGateway> {
  const directory = mkdtempSync(join(tmpdir(), 'tollgate-test-'))
  const databasePath = options.databasePath ?? join(directory, 'tollgate.db')
  const database = options.database ?? `sqlite:${databasePath}`
  const config = parseConfig({ ...(options.config ?? mockConfig), listen: { host: '127.0.0.1', port: 0 }, database }, 'test')
  const gateway = await startGateway(config, options.logger ?? silentLogger)
  const { store } = gateway.services
  const account = await createAccount(
    store.accounts,
    `acct-${crypto.randomUUID().slice(0, 8)}`,
    parseUsd(options.balanceUsd ?? '100'),
    'test',
  )
  const makeKey = async (input: Partial<NewKeyInput> = {}) => {
    const created = await createKey(store.keys, { accountId: account.id, models: options.keyModels ?? null, ...input })
    return { secret: created.secret, record: created.record }
  }
  const first = await makeKey()
  return {
    gateway,
    url: gateway.url,
    baseUrl: `${gateway.url}/v1`,
    account,
    key: first.secret,
    keyRecord: first.record,
    createKey: makeKey,
    createAccount: (name, balanceUsd) => createAccount(store.accounts, name, parseUsd(balanceUsd), 'test'),
    async settled() {
      await gateway.services.ledger.drain()
      return (await store.accounts.findById(account.id))!
    },
    async stop() {
      await gateway.stop(1000)
      rmSync(directory, { recursive: true, force: true })
    },
  }
}
