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

  test('a byte-order mark is dropped at the stream start only, whichever decoder reads the chunk', () => {
    const bytes = (text: string) => new TextEncoder().encode(text)
    const parser = new SseParser()
    expect(parser.push(bytes('\ufeffdata: a\n\n'))).toEqual([{ event: undefined, data: 'a' }])
    expect(parser.push(bytes('data: \ufeffb\n\n'))).toEqual([{ event: undefined, data: '\ufeffb' }])
    // A character split here makes the parser's own decoder; a mark after that is still text.
    const split = bytes('data: é\n\ndata: \ufeffc\n\n')
    expect([...parser.push(split.slice(0, 7)), ...parser.push(split.slice(7))]).toEqual([
      { event: undefined, data: 'é' },
      { event: undefined, data: '\ufeffc' },
    ])
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

  test('a CR ending one chunk and its LF starting the next make one line end', () => {
    const parser = new SseParser()
    expect([...parser.push('data: a\r'), ...parser.push('\ndata: b\r'), ...parser.push('\n\r'), ...parser.push('\n')]).toEqual([
      { event: undefined, data: 'a\nb' },
    ])
  })

  test('a line that never ends is parsed in linear time and cut at the cap', () => {
    const piece = 'a'.repeat(16 * 1024)
    const parser = new SseParser(16 * 1024 * 1024)
    const started = performance.now()
    parser.push('data: ')
    // 1,000 chunks of 16 KB: rescanning the buffer per chunk was 8 GB of scanning; each chunk once is 16 MB.
    for (let i = 0; i < 1000; i++) parser.push(piece)
    expect(performance.now() - started).toBeLessThan(500)
    expect(() => {
      for (let i = 0; i < 100; i++) parser.push(piece)
    }).toThrow(expect.objectContaining({ code: 'upstream_malformed', status: 502 }))
  })

  test('an event of many data lines is cut at the cap too', () => {
    const parser = new SseParser(1000)
    expect(() => parser.push('data: 0123456789\n'.repeat(200))).toThrow(expect.objectContaining({ code: 'upstream_malformed' }))
  })

  test('a chunk that is one whole event parses as the same event whole as fed a character at a time', () => {
    const texts = [
      'data: {"a":1}\n\n',
      'data: \n\n',
      'event: content_block_delta\ndata: {"delta":"x"}\n\n',
      'event: \ndata: y\n\n',
      'event:  spaced\ndata:  two spaces\n\n',
      'event: only a name\n\n',
      'data:no-space\n\n',
      'data: a\ndata: b\n\n',
      'data: x\r\n\r\n',
      'id: 7\ndata: z\n\n',
      ': comment\ndata: w\n\n',
      'data: é ✓\n\n',
    ]
    for (const text of texts) {
      const slow = new SseParser()
      const expected = [...text].flatMap((char) => slow.push(char))
      expect({ text, events: new SseParser().push(new TextEncoder().encode(text)) }).toEqual({ text, events: expected })
    }
    // Several events in one chunk: the whole ones first, the parse going on line by line from the first that is not.
    const rest = 'data: more\n\ndata: end'
    const pieces = [...texts, 'data: [DONE]\n\n', 'event: e\ndata: {"b":2}\n\n']
    for (const first of pieces)
      for (const second of pieces)
        for (const tail of ['', 'data: unfinished', 'event: x\n', 'data: half\n', '\n']) {
          const text = first + second + first + tail
          const slow = new SseParser()
          const expected = [...(text + rest)].flatMap((char) => slow.push(char)).concat(slow.finish())
          const fast = new SseParser()
          const events = [...fast.push(new TextEncoder().encode(text)), ...fast.push(rest), ...fast.finish()]
          expect({ text, events }).toEqual({ text, events: expected })
        }
    // The cap holds on the short path too.
    expect(() => new SseParser(3).push('data: 0123\n\n')).toThrow(expect.objectContaining({ code: 'upstream_malformed' }))
    expect(new SseParser(4).push('data: 0123\n\n')).toEqual([{ event: undefined, data: '0123' }])
  })
})
