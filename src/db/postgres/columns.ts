import { bigint } from 'drizzle-orm/pg-core'

/** Money and times are bigint (nano-dollars, epoch milliseconds), read back as JavaScript numbers (exact below 2^53). */
export const money = (name: string) => bigint(name, { mode: 'number' })
export const time = (name: string) => bigint(name, { mode: 'number' })
