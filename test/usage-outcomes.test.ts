import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { addLogin, signIn, type ConsoleClient } from './support/console.ts'
import { runCli } from './support/cli.ts'
import { startOutcomeTraffic, type OutcomeTraffic } from './support/outcomes.ts'

/**
 * Usage by outcome (issues 24 and 27): every summary — the CLI's `usage`, the console's and the admin API's totals
 * and breakdowns, the CSV — counts answered, refused and failed requests apart, where `requests` alone once showed
 * 1 answered + 2,176 refused as 2,177.
 */
let traffic: OutcomeTraffic
let admin: ConsoleClient

beforeAll(async () => {
  traffic = await startOutcomeTraffic(6)
  const { store } = traffic.gateway.gateway.services
  admin = await signIn(traffic.gateway.url, 'root', await addLogin(store, 'root', 'admin'))
}, 30_000)

afterAll(() => traffic.stop())

// 2 answered; 6 rate-limited + 1 malformed + 1 unknown model refused; 1 upstream down failed.
const accountSplit = { requests: 11, succeeded: 2, refused: 8, failed: 1 }

describe('usage split by outcome', () => {
  test('the admin API: totals, each day and each breakdown split; the refused-before-the-model row and an unconfigured model are labelled', async () => {
    const response = await fetch(`${traffic.gateway.url}/admin/api/usage?account_id=${traffic.gateway.account.id}`, {
      headers: { authorization: `Bearer ${traffic.adminToken}` },
    })
    expect(response.status).toBe(200)
    const usage = await response.json()
    expect(usage.totals).toMatchObject(accountSplit)
    expect(usage.daily.at(-1)).toMatchObject(accountSplit)
    const byModel = Object.fromEntries(usage.by_model.map((group: { id: string }) => [group.id, group]))
    expect(byModel['']).toMatchObject({ label: 'refused before the model was read', requests: 1, succeeded: 0, refused: 1, failed: 0 })
    expect(byModel['gpt-typo']).toMatchObject({ label: 'gpt-typo (not configured)', refused: 1 })
    expect(byModel['mock-1']).toMatchObject({ label: 'mock-1', succeeded: 2, refused: 6, failed: 0 })
    expect(byModel.broken).toMatchObject({ label: 'broken', succeeded: 0, refused: 0, failed: 1 })
    const limited = usage.by_key.find((group: { id: string }) => group.id === traffic.limitedKeyId)
    expect(limited).toMatchObject({ label: 'limited', requests: 7, succeeded: 1, refused: 6, failed: 0 })
  })

  test("the console API says the same, and its request log and CSV name each row's outcome and reason", async () => {
    const usage = await (await admin.get(`/console/api/usage?key_id=${traffic.limitedKeyId}`)).json()
    expect(usage.totals).toMatchObject({ requests: 7, succeeded: 1, refused: 6, failed: 0 })
    const log = await (await admin.get(`/console/api/requests?account_id=${traffic.gateway.account.id}`)).json()
    const outcomes = log.requests.map((row: { status: number; outcome: string; error_type: string | null; model: string }) => [
      row.status,
      row.outcome,
      row.error_type,
      row.model,
    ])
    expect(outcomes).toContainEqual([429, 'refused', 'rate_limit_exceeded', 'mock-1'])
    expect(outcomes).toContainEqual([400, 'refused', expect.any(String), ''])
    expect(outcomes).toContainEqual([503, 'failed', expect.any(String), 'broken'])
    expect(outcomes).toContainEqual([200, 'succeeded', null, 'mock-1'])
    const csv = (await (await admin.get(`/console/api/requests/csv?key_id=${traffic.limitedKeyId}`)).text()).trim().split('\r\n')
    const header = csv[0]!.split(',')
    expect(header).toContain('outcome')
    const outcome = header.indexOf('outcome')
    expect(
      csv
        .slice(1)
        .map((line) => line.split(',')[outcome])
        .sort(),
    ).toEqual([...Array(6).fill('refused'), 'succeeded'])
  })

  test('tollgate usage prints the split and gives it as JSON', async () => {
    const { database } = traffic.gateway.gateway.services.config
    const config = join(database.replace(/^sqlite:/, ''), '..', 'cli.yaml')
    await Bun.write(config, `database: ${database}\nproviders: [{ name: mock, type: mock }]\n`)
    const cli = ['bun', join(import.meta.dir, '..', 'src', 'main.ts')]
    const json = runCli(cli, ['usage', '--key', traffic.limitedKeyId, '--json', '--config', config]).json()
    expect(json).toMatchObject({ requests: 7, succeeded: 1, refused: 6, failed: 0 })
    const text = runCli(cli, ['usage', '--account', traffic.gateway.account.name, '--config', config]).stdout
    expect(text).toContain('requests:      11 (2 answered, 8 refused, 1 failed)')
  })
})

describe('the balance history', () => {
  test('in time order, spending split at the credit made between requests, each row with its span and the balance after it', async () => {
    const history = await (await admin.get(`/console/api/accounts/${traffic.gateway.account.id}/history`)).json()
    const rows = history.history as {
      kind: string
      at?: string
      from?: string
      to?: string
      amount_usd?: string
      spent_usd?: string
      balance_after_usd: string
      note?: string
    }[]
    expect(rows.map((row) => (row.kind === 'credit' ? row.note : 'usage'))).toEqual([
      'usage',
      'top-up between requests',
      'usage',
      'opening balance',
    ])
    // Newest first, by when each happened: a usage row ends (its last request) before the next newer row.
    const times = rows.map((row) => Date.parse(row.kind === 'credit' ? row.at! : row.to!))
    expect(times).toEqual([...times].sort((a, b) => b - a))
    for (const row of rows.filter((item) => item.kind === 'usage')) expect(Date.parse(row.from!)).toBeLessThanOrEqual(Date.parse(row.to!))
    // Each balance follows from the one below it: a credit adds its amount, spending takes what it cost.
    const units = (usd: string) => {
      const [whole, fraction = ''] = usd.replace('-', '').split('.')
      const value = BigInt(whole!) * 1_000_000_000n + BigInt(fraction.padEnd(9, '0'))
      return usd.startsWith('-') ? -value : value
    }
    for (let index = 0; index + 1 < rows.length; index++) {
      const [row, older] = [rows[index]!, rows[index + 1]!]
      const change = row.kind === 'credit' ? units(row.amount_usd!) : -units(row.spent_usd!)
      expect(units(row.balance_after_usd)).toBe(units(older.balance_after_usd) + change)
    }
    expect(rows[0]!.balance_after_usd).toBe(history.account.balance_usd)
  })
})
