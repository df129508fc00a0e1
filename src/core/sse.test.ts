import { describe, expect, test } from 'bun:test'
import { formatSse, SseParser } from './sse.ts'

describe('SseParser', () => {
  test('handles CRLF framing split across chunks, comments and multi-line data', () => {
    const parser = new SseParser()
    const events = [
      ...parser.push('data: {"a":1}\r'),
      ...parser.push('\n\r\n: a comment\n'),
      ...parser.push('event: named\ndata: line one\ndata: line two\n\n'),
      ...parser.push('data:no-space\n\n'),
    ]
    expect(events).toEqual([
      { event: undefined, data: '{"a":1}' },
      { event: 'named', data: 'line one\nline two' },
      { event: undefined, data: 'no-space' },
    ])
  })

  test('a multi-byte character split between chunks survives', () => {
    const bytes = new TextEncoder().encode('data: héllo wörld 😀\n\n')
    const parser = new SseParser()
    const events = [...parser.push(bytes.slice(0, 9)), ...parser.push(bytes.slice(9, 22)), ...parser.push(bytes.slice(22))]
    expect(events[0]!.data).toBe('héllo wörld 😀')
  })

  test('a final event without its blank line is delivered at the end', () => {
    const parser = new SseParser()
    expect(parser.push('data: last')).toEqual([])
    expect(parser.finish()).toEqual([{ event: undefined, data: 'last' }])
  })

  test('formatSse writes what the parser reads', () => {
    const parser = new SseParser()
    expect(parser.push(formatSse('{"x":true}', 'ping'))).toEqual([{ event: 'ping', data: '{"x":true}' }])
  })
})
