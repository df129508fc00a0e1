import type { Socket } from 'bun'

/**
 * An OpenAI-compatible upstream on a raw TCP socket, so it can misbehave the ways real upstreams do — which an HTTP
 * server API would not let it: stall before the head or mid-stream, cut the connection mid-body (a chunked body with
 * no final chunk), answer with garbage, 500, 429 + retry-after. It records every request and every connection the
 * gateway closed before the answer was over (`aborts`, with `performance.now()` times: tests run in one process).
 */
export type Fault =
  | { kind: 'ok'; text?: string; delayMs?: number; omitUsage?: boolean }
  | { kind: 'status'; status: number; retryAfter?: number }
  | { kind: 'stall-head' }
  /** Streams: `after` events, then silence. Whole answers: half the body, then silence. */
  | { kind: 'stall-mid'; after: number; delayMs?: number; text?: string }
  | { kind: 'cut-head' }
  /** Streams: `after` events, then the connection closes mid-body. Whole answers: half the body, then the cut. */
  | { kind: 'cut-mid'; after: number; delayMs?: number; text?: string }
  | { kind: 'garbage' }
  /** Streams: `after` events, then an in-band error event (as OpenAI-compatible servers send one), connection left open. */
  | { kind: 'error-mid'; after: number; delayMs?: number; text?: string }

export interface FaultyRequest {
  path: string
  body: any
  at: number
}

export interface FaultyUpstream {
  url: string
  requests: FaultyRequest[]
  aborts: { at: number; path: string }[]
  /** Faults for the next requests, in order; after that every request gets `fault`. */
  queue: Fault[]
  fault: Fault
  stop(): void
}

export const faultyUsage = { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 }

interface Connection {
  received: Buffer
  handled: boolean
  /** We ended the answer ourselves. */
  finished: boolean
  closed: boolean
  path: string
}

const garbage = '\u0000\u00ff<html>Bad Gateway</html>\u0007{"choices":[{'

export function startFaultyUpstream(fault: Fault = { kind: 'ok' }): FaultyUpstream {
  const upstream: FaultyUpstream = { url: '', requests: [], aborts: [], queue: [], fault, stop: () => listener.stop(true) }
  const listener = Bun.listen<Connection>({
    hostname: '127.0.0.1',
    port: 0,
    socket: {
      open(socket) {
        socket.data = { received: Buffer.alloc(0), handled: false, finished: false, closed: false, path: '' }
      },
      data(socket, chunk) {
        const state = socket.data
        state.received = Buffer.concat([state.received, chunk])
        const end = state.received.indexOf('\r\n\r\n')
        if (state.handled || end === -1) return
        const head = state.received.subarray(0, end).toString()
        const length = Number(/content-length:\s*(\d+)/i.exec(head)?.[1] ?? 0)
        if (state.received.length < end + 4 + length) return
        state.handled = true
        state.path = head.split(' ')[1] ?? ''
        const body = JSON.parse(state.received.subarray(end + 4, end + 4 + length).toString() || 'null')
        upstream.requests.push({ path: state.path, body, at: performance.now() })
        void answer(socket, body, upstream.queue.shift() ?? upstream.fault)
      },
      close(socket) {
        socket.data.closed = true
        if (socket.data.handled && !socket.data.finished) upstream.aborts.push({ at: performance.now(), path: socket.data.path })
      },
      error() {},
    },
  })
  upstream.url = `http://127.0.0.1:${listener.port}`
  return upstream
}

async function answer(socket: Socket<Connection>, body: any, fault: Fault): Promise<void> {
  const finish = () => {
    socket.data.finished = true
    socket.end()
  }
  switch (fault.kind) {
    case 'stall-head':
      return
    case 'cut-head':
      return finish()
    case 'status': {
      const text = JSON.stringify({ error: { message: `injected ${fault.status}`, type: 'server_error' } })
      const extra = fault.retryAfter === undefined ? '' : `retry-after: ${fault.retryAfter}\r\n`
      socket.write(
        `HTTP/1.1 ${fault.status} Injected\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(text)}\r\n${extra}connection: close\r\n\r\n${text}`,
      )
      return finish()
    }
    case 'garbage':
      socket.write(
        `HTTP/1.1 200 OK\r\ncontent-type: ${body?.stream ? 'text/event-stream' : 'application/json'}\r\ncontent-length: ${Buffer.byteLength(garbage)}\r\nconnection: close\r\n\r\n${garbage}`,
      )
      return finish()
  }
  const text = ('text' in fault && fault.text) || 'Hello from upstream'
  const delayMs = 'delayMs' in fault ? (fault.delayMs ?? 0) : 0
  if (!body?.stream) {
    const json = JSON.stringify({
      id: 'chatcmpl-faulty',
      object: 'chat.completion',
      created: 1700000000,
      model: body?.model,
      choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
      ...(fault.kind === 'ok' && fault.omitUsage ? {} : { usage: faultyUsage }),
    })
    if (delayMs) await Bun.sleep(delayMs)
    const head = `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(json)}\r\nconnection: close\r\n\r\n`
    if (fault.kind === 'stall-mid' || fault.kind === 'cut-mid') {
      socket.write(head + json.slice(0, json.length >> 1))
      if (fault.kind === 'cut-mid') socket.end()
      return
    }
    socket.write(head + json)
    return finish()
  }
  socket.write('HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n')
  const events = streamEvents(body, text, fault.kind === 'ok' && fault.omitUsage === true)
  for (const [index, event] of events.entries()) {
    if ((fault.kind === 'stall-mid' || fault.kind === 'cut-mid') && index === fault.after) {
      if (fault.kind === 'cut-mid') socket.end() // no final chunk: a broken body, not a clean end
      return
    }
    if (fault.kind === 'error-mid' && index === fault.after) {
      const error = 'data: {"error":{"message":"injected overload","type":"server_error"}}\n\n'
      socket.write(`${Buffer.byteLength(error).toString(16)}\r\n${error}\r\n`)
      return // and no end: the client is the one who hangs up
    }
    if (socket.data.closed) return
    socket.write(`${Buffer.byteLength(event).toString(16)}\r\n${event}\r\n`)
    if (delayMs) await Bun.sleep(delayMs)
  }
  socket.write('0\r\n\r\n')
  finish()
}

/** Chat Completions chunks: a role chunk, one chunk per word, the finish, usage (when asked for), [DONE]. */
function streamEvents(body: any, text: string, omitUsage: boolean): string[] {
  const base = { id: 'chatcmpl-faulty', object: 'chat.completion.chunk', created: 1700000000, model: body?.model }
  const chunk = (delta: unknown, finish: string | null = null) =>
    `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`
  const events = [chunk({ role: 'assistant', content: '' })]
  for (const word of text.split(/(?= )/)) events.push(chunk({ content: word }))
  events.push(chunk({}, 'stop'))
  if (!omitUsage && body?.stream_options?.include_usage)
    events.push(`data: ${JSON.stringify({ ...base, choices: [], usage: faultyUsage })}\n\n`)
  events.push('data: [DONE]\n\n')
  return events
}
