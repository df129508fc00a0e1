import { open, rm } from 'node:fs/promises'
import type { LimitsConfig } from '../../../../config/types.ts'
import { measureAudioDuration } from '../../../../core/audio-duration/index.ts'
import { GatewayError } from '../../../../core/errors.ts'
import { boundaryOf, type FormPart, readField, readMultipart } from '../../../../core/multipart.ts'
import { bodyTimeout } from '../../../../edge/front-door.ts'
import { uploadSpoolPrefix } from '../../../../edge/upload-spool.ts'
import type { TranscriptionRequest } from '../../core/ir.ts'

/** A form's parts other than the file are short: their size and number are capped, as are a part's headers. */
const formLimits = { maxHeaderBytes: 16 * 1024, maxParts: 64 }
const maxFieldBytes = 16 * 1024
/**
 * The largest audio file taken: what one request may write to the temp folder (OpenAI's own limit is 25 MB; an
 * hour of 16 kHz WAV is 115 MB). Bun's body limit (tasks.max_file_bytes and more) may cut a body sooner.
 */
const maxAudioBytes = 200 * 1024 * 1024

/** `unread`: the body is left unread, so the connection is closed after the answer (it cannot carry another request). */
function audioTooLarge(unread = false): GatewayError {
  return new GatewayError('invalid_request', `The audio file is larger than ${maxAudioBytes} bytes (200 MiB).`, {
    param: 'file',
    code: 'file_too_large',
    headers: unread ? { connection: 'close' } : undefined,
  })
}

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
  const path = uploadSpoolPrefix('audio-upload') + crypto.randomUUID()
  const file = await open(path, 'wx', 0o600)
  let bytes = 0
  try {
    for await (const chunk of part.body) {
      bytes += chunk.byteLength
      if (bytes > maxAudioBytes) throw audioTooLarge()
      await file.write(chunk)
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
  // A body declared larger than the file limit and the form's fields together is refused before it is read.
  if (
    Number(request.headers.get('content-length') ?? 0) >
    maxAudioBytes + formLimits.maxParts * (formLimits.maxHeaderBytes + maxFieldBytes)
  ) {
    throw audioTooLarge(true)
  }
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
