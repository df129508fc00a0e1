import { expect, test } from 'bun:test'
import { parseConfig } from './load.ts'

const base = { providers: [{ name: 'mock', type: 'mock' }], models: [{ id: 'm', provider: 'mock', price: { input: 1, output: 2 } }] }

test('routing: defaults, and every knob read from the file', () => {
  expect(parseConfig(base).routing).toEqual({
    maxAttempts: 3,
    cooldownS: 30,
    windowS: 60,
    minRequests: 5,
    failureRatio: 0.5,
    backoffMs: 100,
    backoffMaxMs: 2000,
    maxRetryAfterS: 10,
  })
  const routing = {
    max_attempts: 5,
    cooldown_s: 0.5,
    window_s: 10,
    min_requests: 2,
    failure_ratio: 1,
    backoff_ms: 0,
    backoff_max_ms: 50,
    max_retry_after_s: 0,
  }
  expect(parseConfig({ ...base, routing }).routing).toEqual({
    maxAttempts: 5,
    cooldownS: 0.5,
    windowS: 10,
    minRequests: 2,
    failureRatio: 1,
    backoffMs: 0,
    backoffMaxMs: 50,
    maxRetryAfterS: 0,
  })
})

test('routing: a bad or misspelt knob fails at start, naming the field', () => {
  expect(() => parseConfig({ ...base, routing: { failure_ratio: 0 } })).toThrow('routing.failure_ratio: must be above 0 and at most 1')
  expect(() => parseConfig({ ...base, routing: { max_attempts: 0 } })).toThrow('routing.max_attempts')
  expect(() => parseConfig({ ...base, routing: { cooldown: 5 } })).toThrow('routing.cooldown: unknown setting')
})

test('trusted_proxies: none by default; addresses and CIDR blocks read; anything else fails at start', () => {
  expect(parseConfig(base).trustedProxies).toEqual([])
  expect(parseConfig({ ...base, trusted_proxies: ['10.0.0.0/8', '192.0.2.1', 'fd00::/8'] }).trustedProxies).toEqual([
    '10.0.0.0/8',
    '192.0.2.1',
    'fd00::/8',
  ])
  expect(() => parseConfig({ ...base, trusted_proxies: ['10.0.0.0/33'] })).toThrow(
    'trusted_proxies: "10.0.0.0/33" is not an IP address or CIDR block',
  )
  expect(() => parseConfig({ ...base, trusted_proxies: ['proxy.internal'] })).toThrow('trusted_proxies')
})

test('redis: a redis:// URL or nothing', () => {
  expect(parseConfig(base).redis).toBeUndefined()
  expect(parseConfig({ ...base, redis: 'redis://127.0.0.1:6379/0' }).redis).toBe('redis://127.0.0.1:6379/0')
  expect(() => parseConfig({ ...base, redis: '127.0.0.1:6379' })).toThrow('redis: must be a URL')
})

test('database: only sqlite:PATH and postgres(ql):// are accepted; every guessable form is refused, naming the field', () => {
  expect(parseConfig({ ...base, database: 'sqlite:./data/x.db' }).database).toBe('sqlite:./data/x.db')
  expect(parseConfig({ ...base, database: 'sqlite:/var/lib/tollgate/x.db' }).database).toBe('sqlite:/var/lib/tollgate/x.db')
  expect(parseConfig({ ...base, database: 'postgres://u@db:5432/t' }).database).toBe('postgres://u@db:5432/t')
  expect(parseConfig({ ...base, database: 'postgresql://u:p@db/t' }).database).toBe('postgresql://u:p@db/t')
  expect(() => parseConfig({ ...base, database: 'mysql://u@db/t' })).toThrow('database: "mysql:" databases are not supported')
  expect(() => parseConfig({ ...base, database: 'sqlite://./x.db' })).toThrow('database: "sqlite://./x.db" is URL syntax')
  expect(() => parseConfig({ ...base, database: 'file:./x.db' })).toThrow('database: "file:" databases are not supported')
  expect(() => parseConfig({ ...base, database: 'sqlite:' })).toThrow('database: "sqlite:" names no file')
  expect(() => parseConfig({ ...base, database: 'sqlite::memory:' })).toThrow('database: "sqlite::memory:" would keep the data in memory')
  expect(() => parseConfig({ ...base, database: './x.db' })).toThrow('database: "./x.db" has no sqlite: or postgres:// prefix')
  expect(() => parseConfig({ ...base, database: 'postgres://u:secret@db:port/t' })).toThrow(
    'database: "postgres://u:***@db:port/t" is not a valid URL',
  )
})

test('listen.port, log.level and listen are checked at load, not when the server trips over them', () => {
  expect(() => parseConfig({ ...base, listen: { port: 99999 } })).toThrow('listen.port: must be a port number from 0 to 65535, got 99999')
  expect(() => parseConfig({ ...base, listen: { prot: 8080 } })).toThrow('listen.prot: unknown setting')
  expect(() => parseConfig({ ...base, log: { level: 'loud' } })).toThrow(
    'log.level: must be one of fatal, error, warn, info, debug, trace, silent, got "loud"',
  )
  expect(parseConfig({ ...base, log: { level: 'debug' } }).log.level).toBe('debug')
})

test('a misspelt top-level key fails at start, naming it', () => {
  expect(() => parseConfig({ ...base, retension: { requests_days: 30 } })).toThrow('retension: unknown setting')
  expect(() => parseConfig({ ...base, model: [] })).toThrow('model: unknown setting')
})

test('tasks: per-account quotas default to 1,000 files, 1 GiB and 25 open batches; each is read, and must be a whole number from 1', () => {
  const tasks = (section?: Record<string, unknown>) => parseConfig({ ...base, ...(section && { tasks: section }) }).tasks
  expect(tasks()).toMatchObject({ maxFilesPerAccount: 1000, maxStoredBytesPerAccount: 1024 ** 3, maxOpenBatchesPerAccount: 25 })
  expect(tasks({ max_files_per_account: 3, max_stored_bytes_per_account: 20_000, max_open_batches_per_account: 1 })).toMatchObject({
    maxFilesPerAccount: 3,
    maxStoredBytesPerAccount: 20_000,
    maxOpenBatchesPerAccount: 1,
  })
  expect(() => tasks({ max_open_batches_per_account: 0 })).toThrow('tasks.max_open_batches_per_account')
  expect(() => tasks({ max_files_per_account: 1.5 })).toThrow('tasks.max_files_per_account')
  expect(() => tasks({ max_open_batches: 5 })).toThrow('max_open_batches')
})
