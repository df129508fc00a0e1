/**
 * Money is an integer count of nano-dollars (1 unit = 0.000000001 USD).
 *
 * Why nano: every price written with up to 9 decimals per million tokens is an exact integer in these units,
 * and a JavaScript number still holds any balance up to about nine million dollars exactly (2^53 units).
 * Floats never touch a balance: dollars enter as decimal text and leave as decimal text.
 */
const UNITS_PER_USD = 1_000_000_000
const DECIMALS = 9

/** Parse a dollar amount ("12.5", 12.5, "0.000000001") into units; throws on anything inexact or malformed. */
export function parseUsd(value: string | number): number {
  const text = typeof value === 'number' ? numberToPlainString(value) : value.trim()
  const match = /^(-)?(\d+)(?:\.(\d+))?$/.exec(text)
  if (!match) throw new Error(`"${value}" is not a dollar amount`)
  const [, sign, whole, fraction = ''] = match
  if (fraction.length > DECIMALS) throw new Error(`"${value}" has more than ${DECIMALS} decimals`)
  const units = BigInt(whole!) * BigInt(UNITS_PER_USD) + BigInt(fraction.padEnd(DECIMALS, '0'))
  if (units > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error(`"${value}" is too large`)
  return Number(sign ? -units : units)
}

/** Units as an exact decimal string of dollars, trailing zeros trimmed but at least two decimals ("9.99995875", "10.00"). */
export function formatUsd(units: number): string {
  if (!Number.isSafeInteger(units)) throw new Error(`money must be a safe integer, got ${units}`)
  const negative = units < 0
  const digits = Math.abs(units)
    .toString()
    .padStart(DECIMALS + 1, '0')
  const point = digits.length - DECIMALS
  // The fraction's trailing zeros trimmed down to two decimals, by hand: a regular expression and the strings of a
  // replace and a pad were made on every request's log line.
  let end = digits.length
  while (end > point + 2 && digits.charCodeAt(end - 1) === 48) end--
  return `${negative ? '-' : ''}${digits.slice(0, point)}.${digits.slice(point, end)}`
}

/** Numbers from YAML arrive as floats; their shortest round-trip text is the decimal the operator wrote. */
function numberToPlainString(value: number): string {
  if (!Number.isFinite(value)) throw new Error(`${value} is not a dollar amount`)
  const text = String(value)
  if (!/e/i.test(text)) return text
  // 1e-7 and friends: expand without going through float arithmetic.
  return value
    .toFixed(DECIMALS + 1)
    .replace(/0+$/, '')
    .replace(/\.$/, '')
}
