/**
 * The list columns keys and projects share (models, allowed addresses) hold JSON text in both dialects; NULL is
 * no list.
 */
export const listOf = (text: string | null) => (text === null ? null : (JSON.parse(text) as string[]))
export const textOf = (list: readonly string[] | null) => (list === null ? null : JSON.stringify(list))

/** The columns an edit of a key or a project sets: only the fields given, the lists as their JSON text. */
export function changedColumns(changes: { models?: readonly string[] | null; allowedIps?: readonly string[] | null }) {
  const { models, allowedIps, ...rest } = changes
  const defined: Record<string, unknown> = Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== undefined))
  if (models !== undefined) defined.models = textOf(models)
  if (allowedIps !== undefined) defined.allowedIps = textOf(allowedIps)
  return defined
}
