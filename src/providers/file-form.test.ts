import { expect, test } from 'bun:test'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileForm } from './file-form.ts'

test('a form of fields and several files from disk: what a multipart parser reads back, at its declared length', async () => {
  const folder = mkdtempSync(join(tmpdir(), 'tollgate-file-form-'))
  const big = new Uint8Array(600 * 1024).map((_, index) => index % 251) // more than two reads of 256 KiB
  writeFileSync(join(folder, 'a'), big)
  writeFileSync(join(folder, 'b'), 'mask bytes')
  writeFileSync(join(folder, 'empty'), '')
  const form = fileForm(
    [
      ['prompt', 'add a "hat"'],
      ['n', '1'],
    ],
    [
      { field: 'image[]', path: join(folder, 'a'), filename: 'a.png', contentType: 'image/png', size: big.length },
      { field: 'image[]', path: join(folder, 'empty'), filename: 'empty.png', contentType: 'image/png', size: 0 },
      { field: 'mask', path: join(folder, 'b'), filename: 'b.png', contentType: 'image/png', size: 10 },
    ],
  )
  const bytes = new Uint8Array(await new Response(form.stream).arrayBuffer())
  expect(bytes.length).toBe(form.length)
  const parsed = await new Response(bytes, { headers: { 'content-type': form.contentType } }).formData()
  expect(parsed.get('prompt')).toBe('add a "hat"')
  expect(parsed.get('n')).toBe('1')
  const images = parsed.getAll('image[]') as unknown as File[]
  expect(images.map((image) => [image.name, image.type, image.size])).toEqual([
    ['a.png', 'image/png', big.length],
    ['empty.png', 'image/png', 0],
  ])
  expect(new Uint8Array(await images[0]!.arrayBuffer())).toEqual(big)
  expect(await (parsed.get('mask') as unknown as File).text()).toBe('mask bytes')
})
