import { t, type TSchema } from 'elysia'

/** Small pieces the console's request and response schemas share. */
export const usd = (description: string) =>
  t.String({ description: `${description}, in USD as an exact decimal string`, examples: ['12.50'] })
export const time = (description: string) => t.String({ format: 'date-time', description })
export const nullable = <T extends TSchema>(schema: T) => t.Union([schema, t.Null()])
/** Elysia's `t.Integer` also accepts numeric strings (for queries); an answer's numbers are plain JSON numbers. */
export const whole = (options: { description?: string } = {}) => t.Number(options)
export const idOf = (what: string) => t.String({ description: `The ${what}'s ID` })

/** A query's time range: the filters the audit log and the request log both take. */
export const timeRange = {
  since: t.Optional(t.String({ description: 'From this time (ISO-8601)' })),
  until: t.Optional(t.String({ description: 'Until this time, exclusive (ISO-8601)' })),
}

/** One keyset page of a newest-first log: its `next` goes back as `before`. */
export const logPageQuery = t.Object({
  limit: t.Optional(t.String({ description: 'Rows per page, 1 to 200; 50 when absent' })),
  before: t.Optional(t.String({ description: 'The `next` value of the previous page' })),
})
