import { open, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { LimitsConfig } from '../../../../config/types.ts'
import { measureAudioDuration } from '../../../../core/audio-duration/index.ts'
import { GatewayError } from '../../../../core/errors.ts'
import { boundaryOf, type FormPart, readField, readMultipart } from '../../../../core/multipart.ts'
import { bodyTimeout } from '../../../../edge/front-door.ts'
import type { TranscriptionRequest } from '../../core/ir.ts'

/** A form's parts other than the file are short: their size and number are capped, as are a part's headers. */
const formLimits = { maxHeaderBytes: 16 * 1024, maxParts: 64 }
const maxFieldBytes = 16 * 1024

/** What the form holds: the file, spooled, and every other field in order. */
export interface AudioForm {
  audio: TranscriptionRequest['audio']
  duration: TranscriptionRequest['duration']
  fields: [string, string][]
}

/**
 * The upload written to a file of its own (0600, in the system's temp folder) as it arrives, so that its memory stays
 * bounded whatever its size. Spooled rather than streamed on to the upstream because the hold needs the audio's
 * duration first, and a container may keep it anywhere (an MP4's `moov` at the end, an MP3 without a Xing header
 * measured from its size); and because a retry or a fallback sends the file again.
 */
async function spool(part: FormPart): Promise<TranscriptionRequest['audio']> {
  const path = join(tmpdir(), `tollgate-audio-upload-${crypto.randomUUID()}`)
  const file = await open(path, 'wx', 0o600)
  let bytes = 0
  try {
    for await (const chunk of part.body) {
      await file.write(chunk)
      bytes += chunk.byteLength
    }
  } catch (error) {
    await file.close()
    await rm(path, { force: true })
    throw error
  }
  await file.close()
  return { path, filename: part.filename || 'audio', contentType: 'application/octet-stream', bytes }
}

/** The duration from the spooled file's header: a few reads of its head (and, for some containers, its tail). */
function measure(path: string, bytes: number): Promise<AudioForm['duration']> {
  const file = Bun.file(path)
  return measureAudioDuration(async (offset, length) => new Uint8Array(await file.slice(offset, offset + length).arrayBuffer()), bytes)
}

/**
 * A `multipart/form-data` transcription or translation request, read as it streams in within the body deadline: the
 * `file` spooled, the other fields kept as text. A corrupted form is a 400 naming what is wrong (core/multipart.ts).
 * The spooled file is the caller's to remove once the request is done; here only when reading fails.
 */
export async function readAudioForm(request: Request, limits: LimitsConfig): Promise<AudioForm> {
  const boundary = boundaryOf(request.headers.get('content-type'))
  if (!request.body) throw new GatewayError('invalid_request', "Expected a multipart/form-data body with a 'file' and a 'model'.")
  const deadline = new AbortController()
  const timer = setTimeout(() => deadline.abort(bodyTimeout(limits.bodyTimeoutMs)), limits.bodyTimeoutMs)
  const fields: [string, string][] = []
  let audio: AudioForm['audio'] | undefined
  try {
    for await (const part of readMultipart(request.body, boundary, { ...formLimits, signal: deadline.signal })) {
      if (part.name !== 'file') {
        fields.push([part.name, await readField(part, maxFieldBytes)])
        continue
      }
      if (audio) throw new GatewayError('invalid_request', "Only one 'file' may be sent.", { param: 'file' })
      audio = await spool(part)
    }
    if (!audio) throw new GatewayError('invalid_request', "Missing required parameter: 'file'.", { param: 'file' })
    return { audio, duration: await measure(audio.path, audio.bytes), fields }
  } catch (error) {
    if (audio) await rm(audio.path, { force: true })
    throw error
  } finally {
    clearTimeout(timer)
  }
}
