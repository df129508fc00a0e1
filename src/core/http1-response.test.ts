import { afterAll, describe, expect, test } from 'bun:test'
import { Http1ResponseParser, MalformedResponse, type ResponseSink } from './http1-response.ts'

/** What a parser handed on: the head, the body's bytes joined, how many pieces, and each end's `reusable`. */
class Recorder implements ResponseSink {
  status = 0
  headers: [string, string][] = []
  parts: Uint8Array[] = []
  ends: boolean[] = []
  head(status: number, headers: [string, string][]): void {
    this.status = status
    this.headers = headers
  }
  body(bytes: Uint8Array): void {
    this.parts.push(bytes.slice()) // a view is valid during the call only
  }
  end(reusable: boolean): void {
    this.ends.push(reusable)
  }
  get text(): string {
    return Buffer.concat(this.parts).toString('utf8')
  }
}

const bytesOf = (text: string) => new Uint8Array(Buffer.from(text, 'latin1'))

/** The response fed in two pieces, split at `cut`. */
function parseSplit(wire: string, cut: number, method = 'POST') {
  const recorder = new Recorder()
  const parser = new Http1ResponseParser(recorder)
  parser.expect(method)
  const bytes = bytesOf(wire)
  parser.push(bytes.subarray(0, cut))
  parser.push(bytes.subarray(cut))
  return { recorder, parser }
}

/** Every split of `wire` in two gives the same result as `check` asserts. */
function everySplit(wire: string, check: (recorder: Recorder) => void, method?: string) {
  for (let cut = 0; cut <= wire.length; cut++) check(parseSplit(wire, cut, method).recorder)
}

function refused(wire: string | string[], method?: string): MalformedResponse {
  const parser = new Http1ResponseParser(new Recorder())
  parser.expect(method)
  try {
    for (const piece of Array.isArray(wire) ? wire : [wire]) parser.push(bytesOf(piece))
    parser.close()
  } catch (error) {
    expect(error).toBeInstanceOf(MalformedResponse)
    return error as MalformedResponse
  }
  throw new Error('the response was accepted')
}

describe('framing', () => {
  test('a Content-Length body, however the reads split it, and the connection kept', () => {
    const wire = 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 10\r\n\r\n{"a":"é"}x'
    everySplit(wire, (recorder) => {
      expect(recorder.status).toBe(200)
      expect(recorder.headers).toContainEqual(['content-type', 'application/json'])
      expect(Buffer.concat(recorder.parts)).toEqual(Buffer.from('{"a":"é"}x', 'latin1'))
      expect(recorder.ends).toEqual([true])
    })
  })

  test('a chunked body with extensions and trailers, however the reads split it', () => {
    const wire =
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Type: text/event-stream\r\n\r\n' +
      '7;ext=1\r\ndata: a\r\n' +
      'A\r\n\n\ndata: bc\r\n' +
      '0\r\nX-Trailer: yes\r\n\r\n'
    everySplit(wire, (recorder) => {
      expect(recorder.text).toBe('data: a\n\ndata: bc')
      expect(recorder.ends).toEqual([true])
    })
  })

  test('a read of several chunks hands on each chunk as a view, without joining them', () => {
    const { recorder } = parseSplit('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n', 46)
    expect(recorder.parts.map((part) => Buffer.from(part).toString())).toEqual(['abc', 'de'])
  })

  test('a body with neither length nor chunks lasts until the connection closes, which is then not reused', () => {
    const { recorder, parser } = parseSplit('HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nsome', 30)
    parser.push(bytesOf(' more'))
    expect(recorder.ends).toEqual([])
    parser.close()
    expect(recorder.text).toBe('some more')
    expect(recorder.ends).toEqual([false])
  })

  test('interim heads (100 Continue, 103 Early Hints) are skipped for the final one', () => {
    everySplit(
      'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok',
      (recorder) => {
        expect(recorder.status).toBe(201)
        expect(recorder.headers).toEqual([['content-length', '2']])
        expect(recorder.text).toBe('ok')
      },
    )
  })

  test('204, 304 and an answer to HEAD have no body, whatever their head says', () => {
    for (const [wire, method] of [
      ['HTTP/1.1 204 No Content\r\n\r\n', 'POST'],
      ['HTTP/1.1 304 Not Modified\r\nContent-Length: 10\r\n\r\n', 'GET'],
      ['HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n', 'HEAD'],
    ] as const) {
      const { recorder } = parseSplit(wire, wire.length, method)
      expect(recorder.parts).toEqual([])
      expect(recorder.ends).toEqual([true])
    }
  })

  test('an empty Content-Length body ends with its head', () => {
    const { recorder } = parseSplit('HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n', 5)
    expect(recorder.ends).toEqual([true])
  })

  test('line ends of a bare LF are read as CRLF', () => {
    const { recorder } = parseSplit('HTTP/1.1 200 OK\nContent-Length: 2\nX-A: b\n\nhi', 20)
    expect(recorder.headers).toEqual([
      ['content-length', '2'],
      ['x-a', 'b'],
    ])
    expect(recorder.text).toBe('hi')
  })
})

describe('reusing the connection', () => {
  const reusable = (wire: string) => parseSplit(wire, wire.length).recorder.ends
  test('HTTP/1.1 keeps it unless Connection says close; HTTP/1.0 closes it unless it says keep-alive', () => {
    expect(reusable('HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n')).toEqual([true])
    expect(reusable('HTTP/1.1 200 OK\r\nConnection: Upgrade, Close\r\nContent-Length: 0\r\n\r\n')).toEqual([false])
    expect(reusable('HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n')).toEqual([false])
    expect(reusable('HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n')).toEqual([true])
  })

  test('both framings at once: chunked decides, and the connection is not reused (a smuggling shape)', () => {
    const { recorder } = parseSplit('HTTP/1.1 200 OK\r\nContent-Length: 100\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n', 10)
    expect(recorder.text).toBe('ok')
    expect(recorder.ends).toEqual([false])
  })

  test('one parser reads the responses of one connection in turn', () => {
    const recorder = new Recorder()
    const parser = new Http1ResponseParser(recorder)
    for (const body of ['first', 'second']) {
      parser.expect()
      parser.push(bytesOf(`HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\n\r\n${body}`))
    }
    expect(recorder.text).toBe('firstsecond')
    expect(recorder.ends).toEqual([true, true])
    expect(() => parser.push(bytesOf('HTTP/1.1 200 OK\r\n'))).toThrow(MalformedResponse) // nothing was asked
  })
})

describe('refused', () => {
  test('no HTTP/1.x status line', () => {
    expect(refused('SSH-2.0-OpenSSH_9.6\r\n\r\n').message).toContain('status line')
    expect(refused('HTTP/2 200\r\n\r\n').message).toContain('status line')
  })

  test('a malformed or disagreeing Content-Length', () => {
    expect(refused('HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n').message).toContain('Content-Length')
    expect(refused('HTTP/1.1 200 OK\r\nContent-Length: 12abc\r\n\r\n').message).toContain('Content-Length')
    expect(refused('HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n').message).toContain('disagree')
    expect(parseSplit('HTTP/1.1 200 OK\r\nContent-Length: 2, 2\r\n\r\nok', 5).recorder.text).toBe('ok')
  })

  test('a malformed chunk size, or a chunk longer than its size', () => {
    expect(refused('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n').message).toContain('chunk size')
    expect(refused('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nfffffffffffffff\r\n').message).toContain('chunk size')
    expect(refused('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n').message).toContain('longer than its size')
  })

  test('a header line without a name, or with space before its colon', () => {
    expect(refused('HTTP/1.1 200 OK\r\n: nothing\r\n\r\n').message).toContain('header line')
    expect(refused('HTTP/1.1 200 OK\r\nX-A : b\r\n\r\n').message).toContain('header line')
  })

  test('a head, chunk line or trailer section without end is not held without limit', () => {
    const parser = new Http1ResponseParser(new Recorder(), { headBytes: 1024 })
    parser.expect()
    expect(() => parser.push(bytesOf(`HTTP/1.1 200 OK\r\nX-Long: ${'a'.repeat(2000)}`))).toThrow('longer than 1024 bytes')
    expect(refused(['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n', '1'.repeat(5000)]).message).toContain('chunk-size line')
    const trailing = new Http1ResponseParser(new Recorder(), { headBytes: 1024 })
    trailing.expect()
    trailing.push(bytesOf('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n'))
    expect(() => {
      for (let line = 0; line < 100; line++) trailing.push(bytesOf('X-Trailer: 0123456789\r\n'))
    }).toThrow('trailer fields longer than 1024 bytes')
  })

  test('a connection that closes mid-response, and a switch of protocols no one asked for', () => {
    expect(refused('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc').message).toContain('before its response was complete')
    expect(refused('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab').message).toContain('before its response was complete')
    expect(refused('HTTP/1.1 20').message).toContain('before its response was complete')
    expect(refused('HTTP/1.1 101 Switching Protocols\r\n\r\n').message).toContain('switched protocols')
  })

  test('an idle connection closing, or one whose response was complete, is no error', () => {
    const parser = new Http1ResponseParser(new Recorder())
    parser.close()
    parser.expect()
    parser.push(bytesOf('HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n'))
    parser.close()
  })
})

describe("a real server's bytes (Bun.serve) read off a raw socket", () => {
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch(request) {
      if (new URL(request.url).pathname === '/whole') return Response.json({ answer: 'whole' })
      return new Response(
        new ReadableStream({
          async pull(controller) {
            for (const word of ['one', 'two', 'three']) {
              controller.enqueue(new TextEncoder().encode(`data: ${word}\n\n`))
              await Bun.sleep(5)
            }
            controller.close()
          },
        }),
        { headers: { 'content-type': 'text/event-stream' } },
      )
    },
  })
  afterAll(() => server.stop(true))

  test('a whole answer and a stream, one after the other on one kept-alive connection', async () => {
    const recorder = new Recorder()
    const parser = new Http1ResponseParser(recorder)
    let ended: (() => void) | undefined
    const socket = await Bun.connect({
      hostname: '127.0.0.1',
      port: server.port!,
      socket: {
        data(_socket, data) {
          const before = recorder.ends.length
          parser.push(data)
          if (recorder.ends.length > before) ended?.()
        },
      },
    })
    const ask = (path: string) => {
      const done = new Promise<void>((resolve) => (ended = resolve))
      parser.expect()
      socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`)
      return done
    }
    await ask('/whole')
    expect(recorder.status).toBe(200)
    expect(JSON.parse(recorder.text)).toEqual({ answer: 'whole' })
    recorder.parts = []
    await ask('/stream')
    expect(recorder.headers).toContainEqual(['transfer-encoding', 'chunked'])
    expect(recorder.text).toBe('data: one\n\ndata: two\n\ndata: three\n\n')
    expect(recorder.ends).toEqual([true, true])
    socket.end()
  })
})
