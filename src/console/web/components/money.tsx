import { usd } from '../format.ts'

/** The widest fraction (the point and its decimals) among a column's amounts: every cell's fraction gets that width. */
export function fractionWidth(amounts: (string | null | undefined)[]): number {
  let widest = 3
  for (const amount of amounts) {
    const point = amount?.indexOf('.') ?? -1
    if (amount && point >= 0) widest = Math.max(widest, amount.length - point)
  }
  return Math.min(widest, 10)
}

/**
 * An exact amount in a right-aligned column, aligned on the decimal point: the whole part ends at the same place in
 * every row because each fraction sits in a box of the column's widest fraction (`width`, from fractionWidth), left
 * aligned. Digits are tabular and the amount never wraps (styles.css `.money`). Its text is just `$12.50`.
 */
export function Money({ amount, width = 3, sign = '' }: { amount: string; width?: number; sign?: string }) {
  const text = sign + usd(amount)
  const point = text.indexOf('.')
  if (point < 0) return <span class="money">{text}</span>
  return (
    <span class="money">
      {text.slice(0, point)}
      <span class={`money-fraction f${width}`}>{text.slice(point)}</span>
    </span>
  )
}
