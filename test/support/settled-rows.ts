import { Database } from 'bun:sqlite'
import type { TestGateway } from './gateway.ts'

/** A usage row's billing columns, as tests check them. */
export interface BilledRow {
  status: number
  error_type: string | null
  input_tokens: number
  output_tokens: number
  cost: number
  estimated: number
}

/** A key's usage rows in the gateway's SQLite file so far, once the ledger has written what it holds. */
export async function usageRowsOf(gateway: TestGateway, databasePath: string, keyId: string): Promise<BilledRow[]> {
  await gateway.gateway.services.ledger.drain()
  const database = new Database(databasePath, { readonly: true })
  try {
    return database
      .query('SELECT status, error_type, input_tokens, output_tokens, cost, estimated FROM usage_records WHERE key_id = ?')
      .all(keyId) as BilledRow[]
  } finally {
    database.close()
  }
}

/**
 * A key's usage rows once its request has settled: a stream that failed or was left is billed a moment after its
 * client saw its end (its bill rides the next batch).
 */
export async function settledRowsOf(gateway: TestGateway, databasePath: string, keyId: string): Promise<BilledRow[]> {
  for (let tries = 0; tries < 300; tries++) {
    const rows = await usageRowsOf(gateway, databasePath, keyId)
    if (rows.length) return rows
    await Bun.sleep(10)
  }
  throw new Error(`no usage row for ${keyId}`)
}
