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
  let depth = 0
  let deepest = 0
  let expectingKey = false
  /** The last key read in the innermost object: the name of the value that follows it. */
  let lastKey = ''
  let index = 0
  const length = text.length
  try {
    while (index < length) {
      const code = text.charCodeAt(index)
      if (code === quote) {
        const end = endOfString(text, index)
        if (depth > 0 && isObject[depth - 1] && expectingKey && nextNonSpace(text, end) === colon) {
          const raw = text.slice(index + 1, end - 1)
          const key = raw.includes('\\') ? (JSON.parse(text.slice(index, end)) as string) : raw
          const seen = keySets[depth - 1]!
          if (seen.has(key)) return pathTo(depth, key)
          seen.add(key)
          lastKey = key
          expectingKey = false
        }
        index = end
        continue
      }
      if (code === openBrace || code === openBracket) {
        // What names the new container in its parent: the key before it in an object, null in an array (or the root).
        names[depth] = depth > 0 && isObject[depth - 1] ? lastKey : null
        isObject[depth] = code === openBrace
        if (code === openBrace) keySets[depth] = emptySetAt(depth)
        depth++
        if (depth > deepest) deepest = depth
        expectingKey = code === openBrace
      } else if (code === closeBrace || code === closeBracket) {
        depth--
      } else if (code === 44) {
        // ',' — in an object, a key comes next
        expectingKey = depth > 0 && isObject[depth - 1]!
      }
      index++
    }
    return undefined
  } finally {
    // The sets kept for the next body let go of this one's keys; deeper ones are dropped.
    for (let level = 0; level < Math.min(deepest, reusedDepth); level++) keySets[level]?.clear()
    keySets.length = Math.min(keySets.length, reusedDepth)
    names.length = Math.min(names.length, reusedDepth)
    isObject.length = Math.min(isObject.length, reusedDepth)
  }
}

/**
 * The scan's state per open container, by depth, kept from one body to the next (the scan is synchronous, so one
 * set of them serves every request): a Set and a path string per object were most of the objects this check left
 * a request (bench/census.ts). Beyond `reusedDepth` levels (hostile nesting) they are made and dropped per body.
 */
const reusedDepth = 16
const keySets: Set<string>[] = []
const names: (string | null)[] = []
const isObject: boolean[] = []

/** An empty Set for the object opening at `depth`: the one kept there, emptied, when there is one. */
function emptySetAt(depth: number): Set<string> {
  const kept = depth < reusedDepth ? keySets[depth] : undefined
  if (kept === undefined) return new Set()
  kept.clear()
  return kept
}

/** The path of `key` in the object open at `depth`, as the 400 names it (`messages[].content`), made only for a duplicate. */
function pathTo(depth: number, key: string): string {
  let path = ''
  for (let level = 1; level < depth; level++) {
    const name = names[level]
    path = name === null || name === undefined ? `${path}[]` : join(path, name)
  }
  return join(path, key)
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
