import { describe, expect, test } from 'bun:test'
import { boundaryOf, readField, readMultipart } from './multipart.ts'

const limits = { maxHeaderBytes: 1024, maxParts: 8 }

/** A FormData as a browser or SDK sends it, cut into chunks of `size` bytes (or at the given offsets). */
async function encode(form: FormData): Promise<{ bytes: Uint8Array; contentType: string }> {
  const response = new Response(form)
  const contentType = response.headers.get('content-type')!
  return { bytes: new Uint8Array(await response.arrayBuffer()), contentType }
}

function streamOf(bytes: Uint8Array, size: number): ReadableStream<Uint8Array> {
  let at = 0
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close()
      controller.enqueue(bytes.slice(at, at + size))
      at += size
    },
  })
}

async function partsOf(bytes: Uint8Array, contentType: string, size: number) {
  const parts: { name: string; filename: string | undefined; text: string }[] = []
  for await (const part of readMultipart(streamOf(bytes, size), boundaryOf(contentType), limits)) {
    parts.push({ name: part.name, filename: part.filename, text: await readField(part, 1 << 20) })
  }
  return parts
}

describe('streaming multipart/form-data', () => {
  test('parts come out whole whatever the chunk size, a delimiter split across chunks included', async () => {
    const form = new FormData()
    form.append('purpose', 'batch')
    // Lines that look like the delimiter's start ("\r\n--"), to catch a false match.
    const text = Array.from({ length: 300 }, (_, index) => `{"n":${index}}\r\n--not-the-boundary\r\n-`).join('\n')
    form.append('file', new File([text], 'in put;x.jsonl'))
    form.append('empty', '')
    const { bytes, contentType } = await encode(form)
    for (const size of [1, 2, 3, 7, 40, 41, 64, 1000, bytes.length]) {
      expect(await partsOf(bytes, contentType, size)).toEqual([
        { name: 'purpose', filename: undefined, text: 'batch' },
        { name: 'file', filename: 'in put;x.jsonl', text },
        { name: 'empty', filename: undefined, text: '' },
      ])
    }
  })

  test('a preamble is skipped; a quoted boundary is read', async () => {
    const body = new TextEncoder().encode('preamble\r\n--b\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--b--\r\nepilogue')
    expect(await partsOf(body, 'multipart/form-data; charset=utf-8; boundary="b"', 5)).toEqual([
      { name: 'a', filename: undefined, text: '1' },
    ])
  })

  test('malformed bodies are 400s: no boundary, truncated, headers too long, no name, too many parts', async () => {
    expect(() => boundaryOf('application/json')).toThrow('boundary')
    expect(() => boundaryOf('multipart/form-data')).toThrow('boundary')
    const bad = async (text: string, message: string) => {
      const error = await partsOf(new TextEncoder().encode(text), 'multipart/form-data; boundary=b', 3).catch((caught) => caught)
      expect(error).toMatchObject({ status: 400, message: expect.stringContaining(message) })
    }
    await bad('--b\r\nContent-Disposition: form-data; name="a"\r\n\r\nunfinished', 'ended before')
    await bad('', 'ended before')
    await bad(`--b\r\nX-Long: ${'x'.repeat(2000)}\r\n\r\n1\r\n--b--`, 'headers are longer than 1024')
    await bad('--b\r\nContent-Disposition: form-data\r\n\r\n1\r\n--b--', 'no name')
    await bad('--b\r\nContent-Type: text/plain\r\n\r\n1\r\n--b--', 'Content-Disposition')
    await bad(`${'--b\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n'.repeat(9)}--b--`, 'at most 8 parts')
  })
})
