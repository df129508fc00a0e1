import { expect, test } from 'bun:test'
import { newRequestId, randomBase62 } from './ids.ts'

test('request ids are req_ and 20 base62 characters, a new one each time (one buffer is reused for all of them)', () => {
  const ids = Array.from({ length: 1000 }, () => newRequestId())
  for (const id of ids) expect(id).toMatch(/^req_[0-9A-Za-z]{20}$/)
  expect(new Set(ids).size).toBe(ids.length)
})

test('randomBase62 spells its length after its prefix, longer than the shared buffer too', () => {
  expect(randomBase62(22, 'key_')).toMatch(/^key_[0-9A-Za-z]{22}$/)
  expect(randomBase62(300)).toMatch(/^[0-9A-Za-z]{300}$/)
})
