/** The text of a response head, and its fields' values, for http1-response.ts's parser. */

/** The upstream broke the protocol: the connection is not to be used again. */
export class MalformedResponse extends Error {
  override readonly name = 'MalformedResponse'
}

export const LF = 10
export const CR = 13

/** Where a head ends: the index of the line end of its empty last line (CRLF or, leniently, LF alone), or -1. */
export function headEnd(bytes: Uint8Array, at: number): number {
  for (let index = bytes.indexOf(LF, at); index !== -1; index = bytes.indexOf(LF, index + 1)) {
    const next = bytes[index + 1]
    if (next === LF) return index + 1
    if (next === CR && bytes[index + 2] === LF) return index + 1
    if (next === undefined || (next === CR && index + 2 === bytes.length)) return -1
  }
  return -1
}

export function latin1(bytes: Uint8Array, start: number, end: number): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset + start, end - start).toString('latin1')
}

export function stripCr(line: string): string {
  return line.endsWith('\r') ? line.slice(0, -1) : line
}

/** What reads a response's headers by name: fetch's `Headers`, or the own client's HeaderFields. */
export type HeaderReader = Pick<Headers, 'get'>

/**
 * A response head's fields as headerFields read them (names lowercased), read by name as `Headers.get` reads them
 * (repeated fields joined with ", "): a native Headers built for every answer cost more than the few lookups an
 * answer gets (content-type, content-length, content-encoding, keep-alive).
 */
export class HeaderFields implements HeaderReader {
  constructor(private readonly fields: [string, string][]) {}

  get(name: string): string | null {
    const wanted = name.toLowerCase()
    let value: string | null = null
    for (const [field, text] of this.fields) if (field === wanted) value = value === null ? text : `${value}, ${text}`
    return value
  }

  /** Every field, name (lowercased) and value, in the order received. */
  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.fields[Symbol.iterator]()
  }
}

/** The header fields of a head's lines (the status line first): obsolete folded lines joined to the field before. */
export function headerFields(lines: string[]): [string, string][] {
  const fields: [string, string][] = []
  for (let index = 1; index < lines.length; index++) {
    const line = stripCr(lines[index]!)
    if (line === '') continue
    const first = line.charCodeAt(0)
    if ((first === 0x20 || first === 0x09) && fields.length > 0) {
      const last = fields[fields.length - 1]!
      last[1] = `${last[1]} ${line.trim()}`
      continue
    }
    const colon = line.indexOf(':')
    if (colon <= 0 || /[\s]/.test(line.slice(0, colon)))
      throw new MalformedResponse(`The upstream sent a malformed header line (${JSON.stringify(line.slice(0, 60))})`)
    fields.push([line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()])
  }
  return fields
}

/** A Content-Length value (a list of equal values is one), checked against one seen before. */
export function contentLength(value: string, before: number | undefined): number {
  let length: number | undefined = before
  for (const part of value.split(',')) {
    const text = part.trim()
    if (!/^\d{1,15}$/.test(text))
      throw new MalformedResponse(`The upstream sent a malformed Content-Length (${JSON.stringify(value.slice(0, 40))})`)
    const number = Number(text)
    if (length !== undefined && number !== length) throw new MalformedResponse('The upstream sent Content-Length values that disagree')
    length = number
  }
  return length!
}

export function hexValue(byte: number): number {
  if (byte >= 0x30 && byte <= 0x39) return byte - 0x30
  if (byte >= 0x61 && byte <= 0x66) return byte - 0x57
  if (byte >= 0x41 && byte <= 0x46) return byte - 0x37
  return -1
}
