/** Milliseconds in a day (UTC days: the usage tables group by `created_at / dayMs`). */
export const dayMs = 86_400_000
