import { GatewayError } from '../../core/errors.ts'
import { describeBytes } from './rules.ts'

/**
 * The lines of a batch input file. A line is one request, so it may be no longer than a live request's body: an
 * upload is measured as it streams in (an upload with no newline was held whole: 100 MiB cost 500 MB of memory), and
 * a stored file is split without building an array of its lines (20 MiB of blank lines is 20 million of them).
 */

function lineTooLong(line: number, maxLineBytes: number): GatewayError {
  return new GatewayError(
    'invalid_request',
    `Line ${line} of the file is longer than ${describeBytes(maxLineBytes)}: each line is one request, and a request body may be at most ${maxLineBytes} bytes.`,
    { code: 'line_too_long', param: `line ${line}` },
  )
}

/** Where an upload is in its lines, chunk by chunk: the number of the line being read and its bytes so far. */
export class LineMeter {
  line = 1
  private open = 0

  constructor(private readonly maxLineBytes: number) {}

  /** Count a chunk's lines; a 400 naming the first line longer than the limit. */
  take(chunk: Uint8Array): void {
    const first = chunk.indexOf(10)
    if (first === -1) return this.grow(chunk.byteLength)
    this.grow(first)
    // A line that starts and ends inside the chunk is shorter than the chunk: only a huge chunk needs each measured.
    if (chunk.byteLength > this.maxLineBytes) return this.takeEach(chunk, first)
    const last = chunk.lastIndexOf(10)
    let newlines = 1
    for (let index = first + 1; index <= last; index++) if (chunk[index] === 10) newlines++
    this.line += newlines
    this.open = 0
    this.grow(chunk.byteLength - last - 1)
  }

  private takeEach(chunk: Uint8Array, first: number): void {
    let newline = first
    while (newline !== -1) {
      this.line++
      this.open = 0
      const next = chunk.indexOf(10, newline + 1)
      this.grow((next === -1 ? chunk.byteLength : next) - newline - 1)
      newline = next
    }
  }

  private grow(bytes: number): void {
    this.open += bytes
    if (this.open > this.maxLineBytes) throw lineTooLong(this.line, this.maxLineBytes)
  }
}

/**
 * A stored file's lines (numbered from 1, `\r\n` endings trimmed), from its parts, without holding more than a part
 * and a line: each line is cut out with indexOf, never by splitting a part into an array.
 */
export async function* splitLines(parts: AsyncIterable<string>, maxLineBytes: number): AsyncGenerator<{ number: number; text: string }> {
  let rest = ''
  let number = 0
  const checked = (text: string) => {
    ++number
    // Characters are at most bytes: only a line near the limit needs its bytes counted.
    if (text.length * 3 > maxLineBytes && Buffer.byteLength(text) > maxLineBytes) throw lineTooLong(number, maxLineBytes)
    return { number, text: text.endsWith('\r') ? text.slice(0, -1) : text }
  }
  for await (const part of parts) {
    const text = rest ? rest + part : part
    let from = 0
    for (let newline = text.indexOf('\n'); newline !== -1; newline = text.indexOf('\n', from)) {
      yield checked(text.slice(from, newline))
      from = newline + 1
    }
    rest = text.slice(from)
    if (rest.length > maxLineBytes) throw lineTooLong(number + 1, maxLineBytes)
  }
  if (rest) yield checked(rest)
}
