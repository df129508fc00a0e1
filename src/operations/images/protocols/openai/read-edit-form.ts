import { mkdtemp, rm } from 'node:fs/promises'
import { join } from 'node:path'
import type { LimitsConfig } from '../../../../config/types.ts'
import { GatewayError, invalidRequest } from '../../../../core/errors.ts'
import { boundaryOf, type FormPart, readField, readMultipart } from '../../../../core/multipart.ts'
import { bodyTimeout } from '../../../../edge/front-door.ts'
import { uploadSpoolPrefix } from '../../../../edge/upload-spool.ts'
import type { ImageFile } from '../../core/ir.ts'

/** OpenAI's own limits for an edit: 16 input images, each under 50 MB (gpt-image models). */
const maxEditImages = 16
const maxImageBytes = 50 * 1024 * 1024
const formLimits = { maxHeaderBytes: 16 * 1024, maxParts: 64 }
/** The prompt is the longest field (32 000 characters for gpt-image models). */
const maxFieldBytes = 128 * 1024

/** An edit's form as read: its fields as text, its files kept aside on disk, and where they are (removed by `remove`). */
export interface EditForm {
  fields: Record<string, string>
  images: ImageFile[]
  mask?: ImageFile
  /** Every byte the form held: with the files' own bounds, what the hold's input side is sized from. */
  bytes: number
  remove(): Promise<void>
}

const imageFields = new Set(['image', 'image[]'])

/**
 * POST /v1/images/edits' multipart body, read as it arrives (core/multipart.ts): each image and the mask written to
 * a private temporary folder chunk by chunk, so memory stays bounded whatever the upload's size, and the files can
 * be sent to the upstream again on a retry or a fallback. The whole form must arrive within the body deadline; a
 * form that is cut, malformed or over the limits is a 400, and what was kept of it is removed.
 */
export async function readEditForm(request: Request, limits: LimitsConfig): Promise<EditForm> {
  const boundary = boundaryOf(request.headers.get('content-type'))
  if (!request.body) throw invalidRequest("Expected a multipart/form-data body with an 'image' and a 'prompt'.", 'image')
  const folder = await mkdtemp(uploadSpoolPrefix('edit'))
  const form: EditForm = { fields: {}, images: [], bytes: 0, remove: () => rm(folder, { recursive: true, force: true }) }
  const deadline = new AbortController()
  const timer = setTimeout(() => deadline.abort(bodyTimeout(limits.bodyTimeoutMs)), limits.bodyTimeoutMs)
  try {
    for await (const part of readMultipart(request.body, boundary, { ...formLimits, signal: deadline.signal })) {
      if (part.filename === undefined) {
        const value = await readField(part, maxFieldBytes)
        form.bytes += Buffer.byteLength(value)
        form.fields[part.name] = value
        continue
      }
      if (part.name === 'mask') {
        if (form.mask) throw invalidRequest("Only one 'mask' may be given.", 'mask')
        form.mask = await keep(part, join(folder, 'mask'))
      } else if (imageFields.has(part.name)) {
        if (form.images.length === maxEditImages) throw invalidRequest(`At most ${maxEditImages} images may be edited at once.`, 'image')
        form.images.push(await keep(part, join(folder, `image-${form.images.length}`)))
      } else
        throw invalidRequest(`Unexpected file in the form field '${part.name}': files go in 'image' (or 'image[]') and 'mask'.`, part.name)
    }
    if (form.images.length === 0) throw invalidRequest("Missing required parameter: 'image'.", 'image')
    form.bytes = form.images.reduce((sum, image) => sum + image.bytes, form.bytes + (form.mask?.bytes ?? 0))
    return form
  } catch (error) {
    await form.remove()
    throw error
  } finally {
    clearTimeout(timer)
  }
}

/** What an image file's first bytes say it is: the formats OpenAI's edits take. */
function imageTypeOf(head: Uint8Array): string | undefined {
  const ascii = (from: number, to: number) => Buffer.from(head.subarray(from, to)).toString('latin1')
  if (head[0] === 0x89 && ascii(1, 4) === 'PNG') return 'image/png'
  if (head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'image/jpeg'
  if (ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return 'image/webp'
  return undefined
}

/**
 * One uploaded file written to `path` as its chunks arrive: a 400 past `maxImageBytes`, or when its first bytes are
 * not a PNG, JPEG or WebP image (its type is read from them, not from what the client said).
 */
async function keep(part: FormPart, path: string): Promise<ImageFile> {
  const writer = Bun.file(path).writer()
  let bytes = 0
  let head = new Uint8Array(0)
  try {
    for await (const chunk of part.body) {
      if (head.length < 12) head = Buffer.concat([head, chunk.subarray(0, 12 - head.length)])
      bytes += chunk.byteLength
      if (bytes > maxImageBytes)
        throw new GatewayError('invalid_request', `The file in '${part.name}' is larger than ${maxImageBytes} bytes.`, {
          param: part.name,
          code: 'file_too_large',
        })
      writer.write(chunk)
      await writer.flush()
    }
  } finally {
    await writer.end()
  }
  const contentType = imageTypeOf(head)
  if (!contentType) throw invalidRequest(`The file in '${part.name}' is not a PNG, JPEG or WebP image.`, part.name)
  return { field: part.name, filename: part.filename || `${part.name.replace('[]', '')}.${contentType.slice(6)}`, contentType, path, bytes }
}
