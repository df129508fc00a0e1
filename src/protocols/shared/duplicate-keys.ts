import { invalidRequest } from '../../core/errors.ts'

const quote = 34 // "
const backslash = 92
const openBrace = 123
const closeBrace = 125
const openBracket = 91
const closeBracket = 93
const colon = 58

/**
 * The passthrough path checks one parse of the body (JSON.parse keeps the last of two equal keys) and forwards the
 * bytes, which an upstream's parser may read differently (the first key, say): `"model":"dear","model":"cheap"`.
 * So a forwarded body must have no duplicate key anywhere; this finds the first one, as a path for the 400.
 * One pass over the text, which JSON.parse has already accepted, so only strings and nesting need tracking. Keys
 * written with escapes (`"mod\u0065l"`) are decoded before they are compared.
 */
function findDuplicateKey(text: string): string | undefined {
  // One entry per open container: the keys seen so far (objects) or null (arrays), and the path to it.
  const keys: (Set<string> | null)[] = []
  const paths: string[] = []
  let expectingKey = false
  /** The last key read in the innermost object: the name of the value that follows it. */
  let lastKey = ''
  let index = 0
  const length = text.length
  while (index < length) {
    const code = text.charCodeAt(index)
    if (code === quote) {
      const end = endOfString(text, index)
      const top = keys.length > 0 ? keys[keys.length - 1] : null
      if (top && expectingKey && nextNonSpace(text, end) === colon) {
        const raw = text.slice(index + 1, end - 1)
        const key = raw.includes('\\') ? (JSON.parse(text.slice(index, end)) as string) : raw
        if (top.has(key)) return join(paths[paths.length - 1]!, key)
        top.add(key)
        lastKey = key
        expectingKey = false
      }
      index = end
      continue
    }
    if (code === openBrace || code === openBracket) {
      const parent = paths.length === 0 ? undefined : paths[paths.length - 1]!
      const inObject = keys.length > 0 && keys[keys.length - 1] !== null
      paths.push(parent === undefined ? '' : inObject ? join(parent, lastKey) : `${parent}[]`)
      keys.push(code === openBrace ? new Set() : null)
      expectingKey = code === openBrace
    } else if (code === closeBrace || code === closeBracket) {
      keys.pop()
      paths.pop()
    } else if (code === 44) {
      // ',' — in an object, a key comes next
      expectingKey = keys.length > 0 && keys[keys.length - 1] !== null
    }
    index++
  }
  return undefined
}

/** Refuse a body with a duplicate key (see findDuplicateKey) with a 400 naming it. */
export function refuseDuplicateKeys(text: string): void {
  const duplicate = findDuplicateKey(text)
  if (duplicate !== undefined) throw invalidRequest(`The body names '${duplicate}' more than once; send each field once.`, duplicate)
}

function join(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`
}

/** The index just past the string that starts at `start` (a quote). */
function endOfString(text: string, start: number): number {
  let index = start + 1
  while (true) {
    const next = text.indexOf('"', index)
    if (next === -1) return text.length
    // An even run of backslashes before the quote leaves it unescaped.
    let slashes = 0
    for (let back = next - 1; text.charCodeAt(back) === backslash; back--) slashes++
    if (slashes % 2 === 0) return next + 1
    index = next + 1
  }
}

function nextNonSpace(text: string, from: number): number {
  let index = from
  while (index < text.length) {
    const code = text.charCodeAt(index)
    if (code !== 32 && code !== 10 && code !== 13 && code !== 9) return code
    index++
  }
  return -1
}
