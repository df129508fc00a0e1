import { expect } from 'bun:test'
import type { Socket } from 'bun'

export interface HugeBodyResult {
  /** The answer's status (0 when the connection ended without one). */
  status: number
  /** The answer's body. */
  body: string
  /** Body bytes the socket had taken when the answer's first bytes arrived: what the server could have read by then. */
  sentBeforeAnswer: number
  /** Milliseconds from the request's start to the answer's first bytes (or to the connection's end). */
  ms: number
}

const chunkBytes = 64 * 1024
const chunk = Buffer.concat([Buffer.from(`${chunkBytes.toString(16)}\r\n`), Buffer.alloc(chunkBytes, ' '), Buffer.from('\r\n')])
const lastChunk = Buffer.from('0\r\n\r\n')

/**
 * POST a `totalBytes` body (chunked: no Content-Length, so nothing refuses it from its headers alone) as fast as the
 * server takes it, and stop sending as soon as an answer begins. A server that answers before reading the body makes
 * the sender stall on TCP backpressure after a few socket buffers; one that reads it all first has taken it whole.
 *
 * Bun's own socket, not node:net's: a server that answers and closes while the body is still coming resets the
 * connection, and node:net's socket, failing its next write (EPIPE), was destroyed with the answer unread.
 */
export async function sendHugeBody(
  url: string,
  path: string,
  headers: Record<string, string>,
  totalBytes: number,
): Promise<HugeBodyResult> {
  const { hostname, port } = new URL(url)
  const startedAt = performance.now()
  let response = ''
  let written = 0
  let sentBeforeAnswer = -1
  let answeredAt = 0
  let pending: Uint8Array | undefined
  let done = () => {}
  const closed = new Promise<void>((resolve) => (done = resolve))
  let sentWhole = false
  const pump = (socket: Socket) => {
    while (sentBeforeAnswer < 0 && !sentWhole) {
      const data = pending ?? (written >= totalBytes ? lastChunk : chunk)
      const taken = socket.write(data)
      if (taken <= 0) return
      written += taken
      pending = taken < data.length ? data.subarray(taken) : undefined
      if (pending) return // the socket is full: `drain` calls again
      sentWhole = data === lastChunk
    }
  }
  await Bun.connect({
    hostname,
    port: Number(port),
    socket: {
      open(socket) {
        const head = Object.entries({
          host: `${hostname}:${port}`,
          'content-type': 'application/json',
          'transfer-encoding': 'chunked',
          ...headers,
        })
          .map(([name, value]) => `${name}: ${value}\r\n`)
          .join('')
        socket.write(`POST ${path} HTTP/1.1\r\n${head}\r\n`)
        pump(socket)
      },
      drain: pump,
      data(socket, data) {
        if (sentBeforeAnswer < 0) {
          sentBeforeAnswer = written
          answeredAt = performance.now()
        }
        response += data.toString()
        // A whole small answer (its head and a body of the declared length) is all this needs.
        const bodyAt = response.indexOf('\r\n\r\n')
        const length = Number(/content-length: (\d+)/i.exec(response)?.[1] ?? NaN)
        if (bodyAt >= 0 && Buffer.byteLength(response.slice(bodyAt + 4)) >= length) socket.end()
      },
      error() {},
      close: () => done(),
    },
  })
  await closed
  const bodyAt = response.indexOf('\r\n\r\n')
  return {
    status: Number(/^HTTP\/1\.1 (\d{3})/.exec(response)?.[1] ?? 0),
    body: bodyAt < 0 ? '' : response.slice(bodyAt + 4),
    sentBeforeAnswer: Math.max(0, sentBeforeAnswer < 0 ? written : sentBeforeAnswer),
    ms: (answeredAt || performance.now()) - startedAt,
  }
}

/**
 * ISSUE 22: strangers posting 150 MB bodies (chunked: nothing in their headers refuses them) to /admin/api and
 * /console/api, three at a time, without credentials or with made-up ones. The binary once read each whole before
 * looking at the credential (three at once: +900 MB); each must get its 401 or 403 at once, its body unread. Apart
 * from the other abuses (test/hostile-binary.test.ts runs it beside them) so that it merges cleanly with them.
 */
export function floodUnauthenticatedBodies(url: string, running: () => boolean) {
  const results: HugeBodyResult[] = []
  const strangers: [string, Record<string, string>][] = [
    ['/admin/api/accounts', {}],
    ['/admin/api/keys', { authorization: 'Bearer tga-made-up-admin-token' }],
    ['/console/api/accounts', {}],
    ['/console/api/users', { cookie: 'tollgate_session=made-up' }],
  ]
  const sender = async (index: number) => {
    for (let round = 0; running(); round++) {
      const [path, headers] = strangers[(index + round) % strangers.length]!
      results.push(await sendHugeBody(url, path, headers, 150 * 1024 * 1024))
      await Bun.sleep(250)
    }
  }
  return {
    run: () => Promise.all([0, 1, 2].map(sender)),
    report: () =>
      `unauthenticated 150 MB bodies: ${results.length}, statuses ${[...new Set(results.map((one) => one.status))].join('/')}, ` +
      `at most ${(Math.max(...results.map((one) => one.sentBeforeAnswer)) / 1e6).toFixed(1)} MB taken before an answer, slowest ${Math.max(...results.map((one) => one.ms)).toFixed(0)} ms`,
    check() {
      expect(results.length).toBeGreaterThan(20)
      for (const one of results) {
        expect([401, 403]).toContain(one.status)
        expect(one.sentBeforeAnswer).toBeLessThan(16 * 1024 * 1024) // what socket buffers hold: the body was never read
        expect(one.ms).toBeLessThan(2000)
      }
    },
  }
}
