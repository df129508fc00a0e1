/**
 * "Did you mean …?" for a mistyped flag or command: the known word nearest to what was typed, when it is near
 * enough to be a slip of the fingers (a swapped pair of letters counts as one slip: `--versoin` → `--version`).
 */
export function nearest(typed: string, known: Iterable<string>): string | undefined {
  let best: string | undefined
  let bestDistance = Infinity
  for (const word of known) {
    const distance = editDistance(typed.toLowerCase(), word.toLowerCase())
    if (distance < bestDistance) [best, bestDistance] = [word, distance]
  }
  const allowed = Math.max(1, Math.min(3, Math.floor(typed.length / 3)))
  return bestDistance <= allowed ? best : undefined
}

/** The suffix of a message: `; did you mean --version?`, or nothing. */
export function didYouMean(typed: string, known: Iterable<string>, prefix = ''): string {
  const match = nearest(typed, known)
  return match ? `; did you mean ${prefix}${match}?` : ''
}

/** Insertions, deletions, substitutions and swaps of neighbours, each costing one (optimal string alignment). */
function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)])
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let value = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) value = Math.min(value, rows[i - 2]![j - 2]! + 1)
      rows[i]![j] = value
    }
  }
  return rows[a.length]![b.length]!
}
