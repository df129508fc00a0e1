import type { Socket } from 'bun'

/**
 * An OpenAI-compatible upstream on a raw TCP socket that misbehaves by volume: an endless stream written as fast as
 * the gateway takes it (respecting the socket's backpressure, so `written` shows how much the gateway read), an
 * endless run of small events that never begin an answer, an SSE line that never ends, a huge JSON body, a huge error body. It records the bytes written and the connections the
 * gateway closed.
 */
export type Hostility =
  | { kind: 'endless-stream' }
  | { kind: 'endless-line' }
  | { kind: 'huge-json'; bytes: number; chunked?: boolean }
  | { kind: 'huge-error'; bytes: number; status?: number }
  | { kind: 'stall-line'; bytes: number }
  | { kind: 'endless-prelude' }

export interface HostileUpstream {
  url: string
  hostility: Hostility
  /** Body bytes the gateway has taken from us (socket.write accepted them). */
  written: number
  requests: number
  closed: number
  stop(): void
}

interface Connection {
  received: string
  handled: boolean
  /** Bytes queued while the gateway's socket was full, and whether more are to be made. */
  pump?: () => void
}

const chunk = (text: string) => `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`
/** A small event that carries no answer (a usage report with no choices): an endless run of them never begins one. */
const preludeEvent = `data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [], usage: { prompt_tokens: 1, completion_tokens: 0, total_tokens: 1 } })}\n\n`
const event = `data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content: 'word '.repeat(200) }, finish_reason: null }] })}\n\n`

export function startHostileUpstream(hostility: Hostility): HostileUpstream {
  const upstream: HostileUpstream = { url: '', hostility, written: 0, requests: 0, closed: 0, stop: () => listener.stop(true) }
  const listener = Bun.listen<Connection>({
    hostname: '127.0.0.1',
    port: 0,
    socket: {
      open(socket) {
        socket.data = { received: '', handled: false }
      },
      data(socket, data) {
        const state = socket.data
        state.received += data.toString('latin1')
        const end = state.received.indexOf('\r\n\r\n')
        if (state.handled || end === -1) return
        const length = Number(/content-length:\s*(\d+)/i.exec(state.received.slice(0, end))?.[1] ?? 0)
        if (state.received.length < end + 4 + length) return
        state.handled = true
        upstream.requests++
        answer(socket, upstream)
      },
      drain(socket) {
        socket.data.pump?.()
      },
      close() {
        upstream.closed++
      },
      error() {},
    },
  })
  upstream.url = `http://127.0.0.1:${listener.port}`
  return upstream
}

/** Write `make()`'s pieces while the socket takes them whole; resume on drain. */
function pumpWith(socket: Socket<Connection>, upstream: HostileUpstream, make: () => string | undefined): void {
  let leftover = ''
  const pump = () => {
    while (true) {
      const piece = leftover || make()
      if (piece === undefined) return void socket.end()
      const taken = socket.write(piece)
      upstream.written += Math.max(0, taken)
      leftover = taken < piece.length ? piece.slice(Math.max(0, taken)) : ''
      if (leftover) return // full: wait for drain
    }
  }
  socket.data.pump = pump
  pump()
}

function answer(socket: Socket<Connection>, upstream: HostileUpstream): void {
  const hostility = upstream.hostility
  const sseHead = 'HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n'
  switch (hostility.kind) {
    case 'endless-stream': {
      socket.write(sseHead)
      const batch = chunk(event.repeat(64))
      return pumpWith(socket, upstream, () => batch)
    }
    case 'endless-prelude': {
      socket.write(sseHead)
      const batch = chunk(preludeEvent.repeat(256))
      return pumpWith(socket, upstream, () => batch)
    }
    case 'endless-line': {
      socket.write(sseHead + chunk('data: {"id":"'))
      const batch = chunk('a'.repeat(256 * 1024))
      return pumpWith(socket, upstream, () => batch)
    }
    case 'stall-line': {
      // A long line, then silence with the line still open.
      socket.write(sseHead + chunk(`data: {"id":"${'a'.repeat(hostility.bytes)}`))
      return
    }
    case 'huge-json': {
      let left = hostility.bytes
      const framing = hostility.chunked ? 'transfer-encoding: chunked' : `content-length: ${hostility.bytes + 6}`
      const frame = hostility.chunked ? chunk : (text: string) => text
      socket.write(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n${framing}\r\n\r\n${frame('{"')}`)
      const piece = 'a'.repeat(256 * 1024)
      let ended = false
      return pumpWith(socket, upstream, () => {
        if (ended) return undefined
        if (left <= 0) {
          ended = true
          return frame('":1}') + (hostility.chunked ? '0\r\n\r\n' : '')
        }
        const next = left >= piece.length ? piece : piece.slice(0, left)
        left -= next.length
        return frame(next)
      })
    }
    case 'huge-error': {
      const prefix = '{"error":{"type":"server_error","message":"'
      const total = hostility.bytes
      socket.write(
        `HTTP/1.1 ${hostility.status ?? 500} Oops\r\ncontent-type: application/json\r\ncontent-length: ${total}\r\n\r\n${prefix}`,
      )
      let left = total - prefix.length - 3
      const piece = 'e'.repeat(256 * 1024)
      return pumpWith(socket, upstream, () => {
        if (left <= 0) return undefined
        const next = left >= piece.length ? piece : piece.slice(0, left)
        left -= next.length
        return left <= 0 ? `${next}"}}` : next
      })
    }
  }
}
