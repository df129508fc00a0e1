import { expect, test } from 'bun:test'
import { locateYamlError } from './yaml-error.ts'

test('the offending line and column of the YAML mistakes people make', () => {
  const place = (text: string) => {
    const found = locateYamlError(text)
    return found && [found.line, found.column]
  }
  expect(place('listen:\n  host: x\n   port: 8080\n')).toEqual([3, 8]) // one space too many
  expect(place('a: b: c\n')).toEqual([1, 5]) // a colon inside a plain value
  expect(place("a: 1\nb: 'unclosed\n")).toEqual([2, 4]) // a quote never closed
  expect(place('models:\n  - { id: a, price: { input: 1 }}}\n')).toEqual([2, 34]) // a brace too many: the last one
  // A list that spans lines is fine; the mistake after it is found.
  expect(place('a: [1,\n  2]\nb: "unterminated\nc: 1\n')).toEqual([3, 4])
  expect(place('a: [1,\n  2]\n')).toBeUndefined()
})
