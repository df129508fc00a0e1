import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { SseParser, type SseEvent } from '../../src/core/sse.ts'

const root = join(import.meta.dir, '..', 'fixtures')

/** A recorded wire capture from test/fixtures/<vendor>/ as text. */
export function readFixture(path: string): string {
  return readFileSync(join(root, path), 'utf8')
}

export function readJsonFixture(path: string): any {
  return JSON.parse(readFixture(path))
}

/** A recorded stream as SSE events: raw `.sse` files go through the real parser, `.jsonl` files are one payload a line. */
export function readStreamFixture(path: string): SseEvent[] {
  const text = readFixture(path)
  if (path.endsWith('.jsonl'))
    return text
      .split('\n')
      .filter((line) => line.trim())
      .map((data) => ({ data }))
  const parser = new SseParser()
  return [...parser.push(text), ...parser.finish()]
}
