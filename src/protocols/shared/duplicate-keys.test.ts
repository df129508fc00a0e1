import { expect, test } from 'bun:test'
import { refuseDuplicateKeys } from './duplicate-keys.ts'

/** The path a refusal names, or undefined when the body passes. */
function duplicateIn(body: unknown): string | undefined {
  const text = typeof body === 'string' ? body : JSON.stringify(body)
  try {
    refuseDuplicateKeys(text)
    return undefined
  } catch (error) {
    return (error as { param?: string }).param
  }
}

test('a duplicate key is named by its path, through objects and arrays', () => {
  expect(duplicateIn('{"model":"a","model":"b"}')).toBe('model')
  expect(duplicateIn('{"messages":[{"role":"user","content":"a"},{"role":"user","role":"system"}]}')).toBe('messages[].role')
  expect(duplicateIn('{"a":{"b":[[{"c":1,"c":2}]]}}')).toBe('a.b[][].c')
  expect(duplicateIn('[{"x":1},{"y":{"z":1,"z":2}}]')).toBe('[].y.z')
  expect(duplicateIn('{"max_tokens":1,"max_tok\\u0065ns":2}')).toBe('max_tokens')
})

test('keys repeated in sibling or nested objects are fine, and one refusal does not leak into the next body', () => {
  expect(duplicateIn({ a: { k: 1 }, b: { k: 2 }, c: [{ k: 3 }, { k: 4, d: { k: 5 } }] })).toBeUndefined()
  expect(duplicateIn('{"a":{"b":{"k":1,"k":2}}}')).toBe('a.b.k') // left with sets still open at three depths
  expect(duplicateIn('{"k":1,"a":{"k":2,"b":{"k":3}}}')).toBeUndefined()
  expect(duplicateIn('{"b":{"k":1}}')).toBeUndefined()
})

test('nesting deeper than the kept levels is checked the same way', () => {
  const deep = (inner: string) => `${'{"n":'.repeat(40)}${inner}${'}'.repeat(40)}`
  expect(duplicateIn(deep('{"k":1,"k":2}'))).toBe(`${Array(40).fill('n').join('.')}.k`)
  expect(duplicateIn(deep('{"k":1}'))).toBeUndefined()
  expect(duplicateIn('{"k":1,"k":2}')).toBe('k')
})

test('keys that share a hash are told apart by their text, and escaped keys by their meaning', () => {
  // "Aa" and "BB" have one hash (31 × 65 + 97 = 31 × 66 + 66): different keys, compared as strings from then on.
  expect(duplicateIn('{"Aa":1,"BB":2}')).toBeUndefined()
  expect(duplicateIn('{"Aa":1,"BB":2,"Aa":3}')).toBe('Aa')
  expect(duplicateIn('{"x":{"Aa":1,"BB":2,"c":3,"BB":4}}')).toBe('x.BB')
  expect(duplicateIn('{"a":1,"\\u0062":2,"b":3}')).toBe('b')
  expect(duplicateIn('{"\\u0061":1,"a":2}')).toBe('a')
  expect(duplicateIn('{"m\\u006fdel":{"k":1},"x":{"k":1,"k":2}}')).toBe('x.k')
  expect(duplicateIn('{"m\\u006fdel":{"k":1,"k":2}}')).toBe('model.k')
  expect(duplicateIn('{"ab":1,"abc":2,"a":3,"b":4}')).toBeUndefined()
})
