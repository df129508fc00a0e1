import { t, type TSchema } from 'elysia'

/** Small pieces the console's request and response schemas share. */
export const usd = (description: string) =>
  t.String({ description: `${description}, in USD as an exact decimal string`, examples: ['12.50'] })
export const time = (description: string) => t.String({ format: 'date-time', description })
export const nullable = <T extends TSchema>(schema: T) => t.Union([schema, t.Null()])
export const idOf = (what: string) => t.String({ description: `The ${what}'s ID` })
