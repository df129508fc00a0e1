/**
 * A streaming multipart/form-data reader: parts are yielded as they arrive, each part's body as a stream of byte
 * chunks, so an upload of any size is never held whole. Each byte is searched once for the delimiter (linear time):
 * only the last `delimiter.length - 1` bytes of a chunk are carried over, for a delimiter split across two chunks.
 * A part's body must be read, or left untouched, before the next part is asked for (what is left is skipped); a
 * consumer that stops reading a body midway (an error) must stop reading the form.
 */
import { GatewayError } from './errors.ts'

export interface FormPart {
  name: string
  filename: string | undefined
  body: AsyncGenerator<Uint8Array>
}

export interface MultipartLimits {
  /** The most bytes a part's header block may take. */
  maxHeaderBytes: number
  /** The most parts a body may hold. */
  maxParts: number
  /**
   * Ends the reading (the body's deadline): a read waiting for bytes fails at once with the signal's reason, so a
   * client trickling its upload is cut when the deadline passes, not when it next sends something.
   */
  signal?: AbortSignal
}

const crlf = Buffer.from('\r\n')
const headerEnd = Buffer.from('\r\n\r\n')

/** The boundary of a `multipart/form-data` content type, or a 400 when there is none. */
export function boundaryOf(contentType: string | null): string {
  const match = /^\s*multipart\/form-data\s*;(?:.*;)?\s*boundary=(?:"([^"]{1,200})"|([^\s;"]{1,200}))/i.exec(contentType ?? '')
  if (!match) throw malformed('Expected a multipart/form-data body with a boundary.')
  return match[1] ?? match[2]!
}

/** Text of a small field's body, at most `maxBytes` bytes (a 400 beyond). */
export async function readField(part: FormPart, maxBytes: number): Promise<string> {
  const chunks: Uint8Array[] = []
  let bytes = 0
  for await (const chunk of part.body) {
    bytes += chunk.byteLength
    if (bytes > maxBytes) throw malformed(`The form field '${part.name}' is longer than ${maxBytes} bytes.`)
    chunks.push(chunk)
  }
  return Buffer.concat(chunks).toString('utf8')
}

export async function* readMultipart(
  body: ReadableStream<Uint8Array>,
  boundary: string,
  limits: MultipartLimits,
): AsyncGenerator<FormPart> {
  const source = new ByteSource(body, limits.signal)
  const delimiter = Buffer.from(`\r\n--${boundary}`)
  try {
    // The body may start with the first delimiter's dashes, without its CRLF: it is read as if it began with one.
    source.unread(crlf)
    for await (const _ of bytesUntil(source, delimiter)) {
    } // the preamble, ignored
    for (let count = 0; ; count++) {
      const headers = await readHeaders(source, limits.maxHeaderBytes)
      if (headers === undefined) return // the closing delimiter
      if (count === limits.maxParts) throw malformed(`A form holds at most ${limits.maxParts} parts.`)
      const part = { ...dispositionOf(headers), body: bytesUntil(source, delimiter) }
      yield part
      for await (const _ of part.body) {
      } // what the consumer left of it
    }
  } finally {
    await source.close()
  }
}

/** The header block after a delimiter (its first line is the delimiter's own padding), or undefined after `--`. */
async function readHeaders(source: ByteSource, maxBytes: number): Promise<string | undefined> {
  let block: Buffer = Buffer.alloc(0)
  while (true) {
    const chunk = await source.read()
    if (chunk === undefined) throw truncated()
    const searchFrom = Math.max(0, block.length - 3)
    block = Buffer.concat([block, chunk])
    if (block.length >= 2 && block[0] === 45 && block[1] === 45) return undefined // '--'
    const end = block.indexOf(headerEnd, searchFrom)
    if (end !== -1 && end <= maxBytes) {
      source.unread(block.subarray(end + headerEnd.length))
      return block.subarray(0, end).toString('utf8')
    }
    if (block.length > maxBytes) throw malformed(`A form part's headers are longer than ${maxBytes} bytes.`)
  }
}

/** The bytes up to the next delimiter (which is consumed), as they arrive; a 400 if the body ends first. */
async function* bytesUntil(source: ByteSource, delimiter: Buffer): AsyncGenerator<Uint8Array> {
  const keep = delimiter.length - 1
  let carry: Buffer = Buffer.alloc(0)
  while (true) {
    let chunk = await source.read()
    if (chunk === undefined) throw truncated()
    if (chunk.length < keep) {
      // A short chunk joins the carried tail (both short): the tail kept must span it.
      chunk = Buffer.concat([carry, chunk])
      carry = Buffer.alloc(0)
    }
    // The carried tail and the chunk's head: a delimiter straddling the two (a short copy, not the chunk).
    const seam = Buffer.concat([carry, chunk.subarray(0, keep)])
    let at = seam.indexOf(delimiter)
    if (at !== -1 && at < carry.length) {
      if (at > 0) yield carry.subarray(0, at)
      source.unread(chunk.subarray(at + delimiter.length - carry.length))
      return
    }
    if (carry.length > 0) yield carry
    at = chunk.indexOf(delimiter)
    if (at !== -1) {
      if (at > 0) yield chunk.subarray(0, at)
      source.unread(chunk.subarray(at + delimiter.length))
      return
    }
    const cut = Math.max(0, chunk.length - keep)
    if (cut > 0) yield chunk.subarray(0, cut)
    carry = chunk.subarray(cut)
  }
}

/** `name` and `filename` from a part's Content-Disposition (`filename*=UTF-8''…` too); a 400 without a name. */
function dispositionOf(headers: string): { name: string; filename: string | undefined } {
  const line = headers.split('\r\n').find((header) => /^content-disposition\s*:/i.test(header))
  if (!line || !/:\s*form-data\b/i.test(line)) throw malformed('A form part has no Content-Disposition: form-data header.')
  const params = new Map<string, string>()
  for (const match of line.matchAll(/;\s*([\w*-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s]*))/g)) {
    params.set(match[1]!.toLowerCase(), match[2] !== undefined ? match[2].replace(/\\(.)/g, '$1') : match[3]!)
  }
  const name = params.get('name')
  if (name === undefined) throw malformed('A form part has no name.')
  const extended = /^utf-8''(.*)$/i.exec(params.get('filename*') ?? '')
  let filename = params.get('filename')
  if (extended) {
    try {
      filename = decodeURIComponent(extended[1]!)
    } catch {} // a malformed extended name: the plain one, if any, stands
  }
  return { name, filename }
}

/** The request body as byte chunks, with bytes read too far given back (the rest after a delimiter). */
class ByteSource {
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>
  private back: Buffer | undefined

  /**
   * An abort cancels the reader, which ends a read waiting for bytes at once; the read then throws the signal's
   * reason. (Not a Promise.race against a promise that never settles: each race would keep its chunk alive.)
   */
  constructor(
    body: ReadableStream<Uint8Array>,
    private readonly signal: AbortSignal | undefined,
  ) {
    this.reader = body.getReader()
    signal?.addEventListener('abort', () => void this.reader.cancel(signal.reason).catch(() => {}), { once: true })
  }

  async read(): Promise<Buffer | undefined> {
    if (this.back) {
      const back = this.back
      this.back = undefined
      return back
    }
    while (true) {
      if (this.signal?.aborted) throw this.signal.reason
      const { value, done } = await this.reader.read()
      if (this.signal?.aborted) throw this.signal.reason
      if (done) return undefined
      if (value.byteLength > 0) return Buffer.from(value.buffer, value.byteOffset, value.byteLength)
    }
  }

  unread(bytes: Uint8Array): void {
    if (bytes.byteLength > 0) this.back = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  }

  /** Stop reading: the rest of the body (an epilogue, or what follows an error) is never read. */
  async close(): Promise<void> {
    await this.reader.cancel().catch(() => {})
  }
}

function truncated(): GatewayError {
  return malformed('The multipart/form-data body ended before its closing boundary.')
}

function malformed(message: string): GatewayError {
  return new GatewayError('invalid_request', message)
}
