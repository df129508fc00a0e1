import { expect, test } from 'bun:test'
import { SseParser } from '../core/sse.ts'
import { eventsEnd } from './passthrough-tap.ts'

/** The tap sends an event's bytes only once the event is complete: its cut must agree with the SSE parser's. */
const streams = [
  'data: a\n\ndata: b\n\n: ping\n\nevent: x\ndata: c\ndata: d\n\n',
  'data: a\r\n\r\ndata: b\r\n\r\nevent: error\r\ndata: {"e":1}\r\n\r\n',
  'data: a\r\rdata: b\r\r\ndata: c\n\r\ndata: d\r\n\n',
  'data: é😀\n\nid: 1\nretry: 5\ndata: x\n\n',
]

for (const stream of streams) {
  test(`eventsEnd cuts where the parser completes its events: ${JSON.stringify(stream.slice(0, 24))}…`, () => {
    const bytes = new TextEncoder().encode(stream)
    for (let length = 0; length <= bytes.length; length++) {
      const prefix = bytes.subarray(0, length)
      const cut = eventsEnd(prefix)
      const all = new SseParser().push(prefix).length
      expect(new SseParser().push(prefix.subarray(0, cut)).length).toBe(all)
      // The bytes held back complete nothing by themselves, and the cut is the last place that completes as much.
      for (let other = cut + 1; other <= length; other++) {
        if (new SseParser().push(prefix.subarray(0, other)).length > new SseParser().push(prefix.subarray(0, cut)).length)
          throw new Error(`cut ${cut} of ${length} held back an event completed at ${other}`)
      }
      // Split in two reads: the second's cut, with the first held, still agrees.
      for (let split = 1; split < length; split++) {
        const first = prefix.subarray(0, split)
        const second = prefix.subarray(split)
        const firstCut = eventsEnd(first)
        if (firstCut !== 0) continue
        const secondCut = eventsEnd(second, first)
        expect(secondCut === 0 ? 0 : split + secondCut).toBe(cut)
      }
    }
  })
}
