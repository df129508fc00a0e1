/**
 * The budget periods a hold counts against, as one string (`budget:start,budget:start`): kept on the lease, its hold
 * row and each bill, so a bill settles against the periods its request was admitted in, however late it is written.
 */
export interface PeriodRef {
  budgetId: number
  start: number
}

export function decodePeriodRefs(text: string | null | undefined): PeriodRef[] {
  if (!text) return []
  return text.split(',').map((part) => {
    const [budgetId, start] = part.split(':')
    return { budgetId: Number(budgetId), start: Number(start) }
  })
}
