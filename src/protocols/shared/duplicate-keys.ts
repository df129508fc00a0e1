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
  /** Where the last key read in the innermost object starts: the name of the value that follows it. */
  let lastKeyAt = -1
  let index = 0
  const length = text.length
  try {
    while (index < length) {
      const code = text.charCodeAt(index)
      if (code === quote) {
        const end = endOfString(text, index)
        if (depth > 0 && isObject[depth - 1] && expectingKey && nextNonSpace(text, end) === colon) {
          if (isRepeated(text, index, end, seenAt[depth - 1]!)) return pathTo(text, depth, index)
          lastKeyAt = index
          expectingKey = false
        }
        index = end
        continue
      }
      if (code === openBrace || code === openBracket) {
        // What names the new container in its parent: the key before it in an object, none in an array (or the root).
        names[depth] = depth > 0 && isObject[depth - 1] ? lastKeyAt : -1
        isObject[depth] = code === openBrace
        if (code === openBrace) seenAt[depth] = freshAt(depth)
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
    // The states kept for the next body let go of this one's keys; deeper ones are dropped.
    for (let level = 0; level < Math.min(deepest, reusedDepth); level++) seenAt[level]?.reset()
    seenAt.length = Math.min(seenAt.length, reusedDepth)
    names.length = Math.min(names.length, reusedDepth)
    isObject.length = Math.min(isObject.length, reusedDepth)
  }
}

/**
 * The keys of one open object, compared without making a string of each: by a hash of the key's text, and on a hash
 * already seen by the two texts themselves. A key written with an escape, or two different keys with one hash, turn
 * the object's keys into (decoded) strings from then on. A string per key was most of what this check left a request.
 */
class KeysSeen {
  /** A key's hash → where the first key with that hash starts (its opening quote). */
  readonly byHash = new Map<number, number>()
  /** Where each key read so far starts, for turning them into strings. */
  readonly starts: number[] = []
  /** The keys as strings, once this object needed them. */
  strings: Set<string> | undefined

  reset(): void {
    this.byHash.clear()
    this.starts.length = 0
    this.strings = undefined
  }
}

/** Whether the key between `start` (its opening quote) and `end` (past its closing one) is one `seen` has already. */
function isRepeated(text: string, start: number, end: number, seen: KeysSeen): boolean {
  if (seen.strings === undefined) {
    let hash = 0
    let escaped = false
    for (let at = start + 1; at < end - 1; at++) {
      const code = text.charCodeAt(at)
      if (code === backslash) escaped = true
      hash = (Math.imul(hash, 31) + code) | 0
    }
    if (!escaped) {
      const other = seen.byHash.get(hash)
      if (other === undefined) {
        seen.byHash.set(hash, start)
        seen.starts.push(start)
        return false
      }
      if (sameText(text, other, start, end)) return true
    }
    // An escape, or another key with this hash: this object's keys are compared as strings from here on.
    seen.strings = new Set()
    for (const at of seen.starts) seen.strings.add(keyAt(text, at))
  }
  const key = keyAt(text, start)
  if (seen.strings.has(key)) return true
  seen.strings.add(key)
  return false
}

/** Whether the unescaped key starting at `first` is written as the one from `start` to `end`. */
function sameText(text: string, first: number, start: number, end: number): boolean {
  if (endOfString(text, first) - first !== end - start) return false
  for (let offset = 1; offset < end - start - 1; offset++)
    if (text.charCodeAt(first + offset) !== text.charCodeAt(start + offset)) return false
  return true
}

/** The key whose opening quote is at `start`, decoded. */
function keyAt(text: string, start: number): string {
  const end = endOfString(text, start)
  const raw = text.slice(start + 1, end - 1)
  return raw.includes('\\') ? (JSON.parse(text.slice(start, end)) as string) : raw
}

/**
 * The scan's state per open container, by depth, kept from one body to the next (the scan is synchronous, so one
 * set of them serves every request): a Set and a path string per object were most of the objects this check left
 * a request (bench/census.ts). Beyond `reusedDepth` levels (hostile nesting) they are made and dropped per body.
 */
const reusedDepth = 16
const seenAt: KeysSeen[] = []
/** Where the key naming each open container starts; -1 for an array's element (or the root). */
const names: number[] = []
const isObject: boolean[] = []

/** The emptied state for the object opening at `depth`: the one kept there, when there is one. */
function freshAt(depth: number): KeysSeen {
  const kept = depth < reusedDepth ? seenAt[depth] : undefined
  if (kept === undefined) return new KeysSeen()
  kept.reset()
  return kept
}

/** The path of the key at `keyStart` in the object open at `depth`, as the 400 names it (`messages[].content`). */
function pathTo(text: string, depth: number, keyStart: number): string {
  let path = ''
  for (let level = 1; level < depth; level++) {
    const name = names[level]
    path = name === undefined || name < 0 ? `${path}[]` : join(path, keyAt(text, name))
  }
  return join(path, keyAt(text, keyStart))
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
