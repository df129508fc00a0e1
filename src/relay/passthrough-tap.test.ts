import { describe, expect, test } from 'bun:test'
import { SseParser } from '../core/sse.ts'
import { listedChunks } from '../providers/listed-chunks.ts'
import type { ChatRequest } from '../operations/chat/core/ir.ts'
import { ChatMeter } from '../operations/chat/relay/meter.ts'
import { createOpenAiStreamDecoder } from '../operations/chat/providers/openai/decode-stream.ts'
import { encodeRawChatError, isUsageChunk } from '../operations/chat/protocols/openai-chat/passthrough.ts'
import type { AbortScope } from './abort-scope.ts'
import { eventsEnd, keptBytes } from './event-bytes.ts'
import { PassthroughTap } from './passthrough-tap.ts'
import type { AnswerCodec } from './types.ts'

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

/*
 * The bytes a passthrough stream sends: a read's own bytes when every event in it goes as it came; without the usage
 * chunk the client did not ask for, cut out of the read when its events are written as formatSse writes them, else
 * the read's events written anew (what every read that dropped an event got before the cut); an upstream error event
 * replaced by the protocol's own. What the client gets must not depend on how the reads fall.
 */
const chunk = (fields: object) => `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', ...fields })}\n\n`
const role = chunk({ choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] })
const text = (word: string) => chunk({ choices: [{ index: 0, delta: { content: word }, finish_reason: null }] })
const stop = chunk({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })
const usage = chunk({ choices: [], usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 } })
const done = 'data: [DONE]\n\n'
const upstreamError = 'data: {"error":{"message":"overloaded","type":"server_error"}}\n\n'
const crlf = (lf: string) => lf.replaceAll('\n', '\r\n')
const chatRequest: ChatRequest = {
  model: 'm',
  system: [],
  messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
  stream: true,
}

/** What the client reads of an upstream stream that came in these reads (`includeUsage`: the client asked for usage). */
async function relayed(reads: (string | Uint8Array)[], includeUsage = false): Promise<Uint8Array> {
  const body = reads.map((read) => (typeof read === 'string' ? new TextEncoder().encode(read) : read))
  const codec: AnswerCodec = {
    encodeWhole: () => '',
    dropRawEvent: includeUsage ? undefined : isUsageChunk,
    encodeRawError: encodeRawChatError,
  }
  const forwarded = {
    chunks: listedChunks(body, new AbortController()),
    decoder: createOpenAiStreamDecoder(),
    parser: new SseParser(),
    maxHeldBytes: 1_000_000,
  }
  const tap = new PassthroughTap(forwarded, new ChatMeter(chatRequest), codec, { readsOn: false } as AbortScope)
  await tap.prime()
  const ending = {
    done: false,
    async finish() {
      this.done = true
    },
  }
  return new Uint8Array(await new Response(tap.toStream(ending, 5_000)).arrayBuffer())
}

const asText = (bytes: Uint8Array) => new TextDecoder().decode(bytes)
const whole = role + text('Hello') + text(' world') + stop + usage + done

describe('a passthrough stream without the usage chunk the client did not ask for', () => {
  test('one read: the usage chunk cut out, every other byte as it came', async () => {
    expect(asText(await relayed([whole]))).toBe(role + text('Hello') + text(' world') + stop + done)
    expect(asText(await relayed([whole], true))).toBe(whole)
  })

  test('the same bytes however the reads split the events, across an event or inside one', async () => {
    const expected = role + text('Hello') + text(' world') + stop + done
    for (let split = 1; split < whole.length; split++)
      expect({ split, text: asText(await relayed([whole.slice(0, split), whole.slice(split)])) }).toEqual({ split, text: expected })
    const usageAt = whole.indexOf(usage)
    for (let first = usageAt - 3; first <= usageAt + 3; first++)
      for (let second = first + 1; second <= usageAt + usage.length + 3; second += 7) {
        const reads = [whole.slice(0, first), whole.slice(first, second), whole.slice(second)]
        expect(asText(await relayed(reads))).toBe(expected)
      }
  })

  test('dropped in the middle of a read, or at its end', async () => {
    const middle = role + text('Hello') + usage + text(' world') + stop + done
    expect(asText(await relayed([middle]))).toBe(role + text('Hello') + text(' world') + stop + done)
    expect(asText(await relayed([role + text('Hello') + stop + usage, done]))).toBe(role + text('Hello') + stop + done)
    expect(asText(await relayed([role + text('Hello'), stop + usage]))).toBe(role + text('Hello') + stop)
  })

  test('named events are cut out as they came too', async () => {
    const named = (lf: string) => `event: chunk\n${lf}`
    const stream = role + named(text('Hello')) + stop + named(usage) + done
    expect(asText(await relayed([stream]))).toBe(role + named(text('Hello')) + stop + done)
  })

  test('CRLF line ends: a read without a dropped event goes as it came, the one with it is written anew as before', async () => {
    // formatSse writes LF: the read that dropped the usage chunk was always re-framed, and still is.
    expect(asText(await relayed([crlf(whole)]))).toBe(role + text('Hello') + text(' world') + stop + done)
    const reads = [crlf(role + text('Hello')), crlf(text(' world') + stop + usage + done)]
    expect(asText(await relayed(reads))).toBe(crlf(role + text('Hello')) + text(' world') + stop + done)
    // An event's CRLF split between two reads: the CR ends it, and the LF, held with the next read, begins a read
    // that is not only formatted events, so that one is re-framed (its LF dropped) as it always was.
    const split = crlf(role + text('Hello'))
    expect(asText(await relayed([split.slice(0, -1), split.slice(-1), stop + usage + done]))).toBe(split.slice(0, -1) + stop + done)
    expect(asText(await relayed([split.slice(0, -1), split.slice(-1) + stop + usage + done]))).toBe(split.slice(0, -1) + stop + done)
  })

  test('a read that is not only events as formatSse writes them is written anew, as before', async () => {
    // A comment, a `data:` without its space, an `id:` line: each is dropped or respelled by re-framing.
    const bang = '{"id":"c1","choices":[{"index":0,"delta":{"content":"!"}}]}'
    const odd = [
      [': ping\n\n', ''],
      [`data:${bang}\n\n`, `data: ${bang}\n\n`],
      [`id: 7\n${text('!')}`, text('!')],
    ]
    for (const [extra, reframed] of odd) {
      const read = role + text('Hello') + extra + stop + usage + done
      expect(asText(await relayed([read]))).toBe(role + text('Hello') + reframed + stop + done)
      // In a read without a dropped event, the same bytes go as they came.
      expect(asText(await relayed([role + text('Hello') + extra, stop + usage + done]))).toBe(role + text('Hello') + extra + stop + done)
    }
    // Bytes that are not UTF-8: the text the events were read as is what re-framing sent (U+FFFD).
    const bad = new Uint8Array([
      ...new TextEncoder().encode('data: {"choices":[{"index":0,"delta":{"content":"'),
      0xff,
      ...new TextEncoder().encode('"}}]}\n\n'),
    ])
    const read = new Uint8Array([...new TextEncoder().encode(role), ...bad, ...new TextEncoder().encode(stop + usage + done)])
    expect(asText(await relayed([read]))).toBe(`${role}data: {"choices":[{"index":0,"delta":{"content":"\ufffd"}}]}\n\n${stop}${done}`)
  })

  test("an error event after good ones: those go as they came, the error in the protocol's own shape, nothing after it", async () => {
    const failure = createOpenAiStreamDecoder().decode({ data: upstreamError.slice(6, -2) })
    const error = failure.find((event) => event.type === 'error')
    if (error?.type !== 'error') throw new Error('the decoder made no error event')
    const ours = encodeRawChatError(error.error)
    expect(ours).not.toBe(upstreamError)
    const good = role + text('Hello')
    expect(asText(await relayed([good + upstreamError + text(' world') + stop + usage + done]))).toBe(good + ours)
    expect(asText(await relayed([good, upstreamError + text(' world')]))).toBe(good + ours)
    expect(asText(await relayed([crlf(good + upstreamError)]))).toBe(good + ours)
    // Split inside the error event: none of it leaves before it is known to be one.
    expect(asText(await relayed([good + upstreamError.slice(0, 20), upstreamError.slice(20) + done]))).toBe(good + ours)
  })
})

describe('keptBytes', () => {
  const bytes = (text: string) => new TextEncoder().encode(text)
  const kept = (text: string, end: number | undefined, dropped: number[] | undefined) => {
    const read = bytes(text)
    const events = new SseParser().push(read)
    const cut = keptBytes(read, events, end ?? events.length, dropped)
    return cut === undefined ? undefined : asText(cut)
  }
  test('moves the kept blocks down over the dropped ones; undefined where a block is not one formatted event', () => {
    expect(kept(role + usage + done, undefined, [1])).toBe(role + done)
    expect(kept(usage + role + usage + done + usage, undefined, [0, 2, 4])).toBe(role + done)
    expect(kept(role + usage + done, undefined, undefined)).toBe(role + usage + done)
    expect(kept(role + usage + done, 1, undefined)).toBe(role)
    expect(kept(role + usage + done, 2, [0])).toBe(usage)
    expect(kept(usage, undefined, [0])).toBe('')
    expect(kept(`: hi\n\n${role}${usage}`, undefined, [1])).toBeUndefined()
    expect(kept(`${role}${usage}\n`, undefined, [1])).toBeUndefined()
    expect(kept(`event: x\n${role}${usage}`, undefined, [1])).toBe(`event: x\n${role}`)
  })
  test('a read it cannot cut is left as it came', () => {
    const read = bytes(`${role}${usage}: trailing comment\n\n`)
    const copy = read.slice()
    expect(keptBytes(read, new SseParser().push(read), 2, [1])).toBeUndefined()
    expect(read).toEqual(copy)
  })
})
