import { expect, test } from 'bun:test'
import { HeaderFields, headerFields } from './http1-head.ts'

test("a head's fields are read by name as fetch's Headers reads them: any case, repeats joined, absent as null", () => {
  const lines = ['HTTP/1.1 429 Too Many Requests', 'Retry-After: 3', 'X-Thing: one', 'x-thing: two', 'Content-Type: application/json']
  const fields = new HeaderFields(headerFields(lines))
  const native = new Headers(headerFields(lines))
  for (const name of ['retry-after', 'RETRY-AFTER', 'x-thing', 'content-type', 'content-length'])
    expect(fields.get(name)).toBe(native.get(name))
  expect(fields.get('x-thing')).toBe('one, two')
  expect([...fields]).toEqual([
    ['retry-after', '3'],
    ['x-thing', 'one'],
    ['x-thing', 'two'],
    ['content-type', 'application/json'],
  ])
})
