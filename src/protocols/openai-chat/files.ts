import { GatewayError } from '../../core/errors.ts'
import { boundaryOf, readField, readMultipart } from '../../core/multipart.ts'
import { jsonResponse } from '../../edge/respond.ts'
import type { Services } from '../../edge/services.ts'
import { describeBytes, FileTooLargeError, type FileRecord } from '../../edge/tasks.ts'
import type { Caller } from '../../relay/types.ts'
import { defineEndpoint } from '../shared/define-endpoint.ts'
import type { ProtocolFront } from '../shared/client-protocol.ts'
import { bearerToken } from '../../edge/auth.ts'
import { bodyTimeout } from '../../edge/front-door.ts'
import { openAiErrorResponse } from './error-response.ts'
import { pageLimit } from '../shared/page-limit.ts'
import { textStream } from '../shared/text-stream.ts'
import { decodePathPart } from '../shared/path-id.ts'

export const openAiFront: ProtocolFront = { readSecret: bearerToken, renderError: openAiErrorResponse }

const seconds = (ms: number | null) => (ms === null ? null : Math.floor(ms / 1000))

function presentFile(file: FileRecord) {
  return {
    id: file.id,
    object: 'file',
    bytes: file.bytes,
    created_at: seconds(file.createdAt),
    filename: file.filename,
    purpose: file.purpose,
    status: 'processed',
    status_details: null,
    expires_at: seconds(file.expiresAt),
  }
}

export function noSuchFile(id: string): GatewayError {
  return new GatewayError('not_found', `No such File object: ${id}`, { param: 'id' })
}

/** What follows /v1/files/: the id, and `/content` when the bytes are asked for. */
function fileIdOf(request: Request): { id: string; content: boolean } {
  const rest = decodePathPart(new URL(request.url).pathname.slice('/v1/files/'.length), 'file ID')
  return rest.endsWith('/content') ? { id: rest.slice(0, -'/content'.length), content: true } : { id: rest, content: false }
}

/** A form's parts other than the file are short: their size and number are capped, as are a part's headers. */
const formLimits = { maxHeaderBytes: 16 * 1024, maxParts: 16 }
const maxFieldBytes = 16 * 1024

/**
 * POST /v1/files (multipart: `file`, `purpose=batch`, optional `expires_after[anchor|seconds]`, in any order). The
 * form is parsed as it arrives (core/multipart.ts) and the file's bytes stored as they come, in parts of whole lines;
 * the file is recorded only once the whole form is read and checked, and its parts removed when it is refused. Its
 * lines are checked when a batch is made from it.
 */
async function uploadFile(services: Services, caller: Caller, request: Request): Promise<Response> {
  const boundary = boundaryOf(request.headers.get('content-type'))
  if (!request.body) throw new GatewayError('invalid_request', 'Expected a multipart/form-data body with a "file" and a "purpose".')
  const { maxFileBytes } = services.tasks.limits
  // A body declared larger than the file limit and a form's fields together is refused before it is read.
  const declared = Number(request.headers.get('content-length') ?? 0)
  if (declared > maxFileBytes + formLimits.maxParts * (formLimits.maxHeaderBytes + maxFieldBytes)) throw fileTooLarge(maxFileBytes)
  // An account at its quota is refused before anything is read (and again, exactly, as the file is recorded).
  await services.tasks.admitUpload(caller.accountId)
  const fields = new Map<string, string>()
  let stored: { id: string; bytes: number } | undefined
  let filename = 'upload.jsonl'
  // The whole form must arrive within the body deadline, as any request's body must: a trickled upload is cut there.
  const { bodyTimeoutMs } = services.config.limits
  const deadline = new AbortController()
  const timer = setTimeout(() => deadline.abort(bodyTimeout(bodyTimeoutMs)), bodyTimeoutMs)
  try {
    for await (const part of readMultipart(request.body, boundary, { ...formLimits, signal: deadline.signal })) {
      if (part.name === 'file') {
        if (stored) throw new GatewayError('invalid_request', "Only one 'file' may be uploaded at a time.", { param: 'file' })
        filename = part.filename || filename
        stored = await services.tasks.storeFileParts(part.body)
        continue
      }
      const value = await readField(part, maxFieldBytes)
      fields.set(part.name, value)
      if (part.name === 'purpose') checkPurpose(value) // before a file that follows is stored
    }
    if (!stored) throw new GatewayError('invalid_request', "Missing required parameter: 'file'.", { param: 'file' })
    checkPurpose(fields.get('purpose'))
    const expiresSeconds = Number(fields.get('expires_after[seconds]') ?? 30 * 86_400)
    if (!Number.isInteger(expiresSeconds) || expiresSeconds < 3600 || expiresSeconds > 2_592_000) {
      throw new GatewayError('invalid_request', "'expires_after[seconds]' must be an integer from 3600 to 2592000.", {
        param: 'expires_after[seconds]',
      })
    }
    const file = await services.tasks.recordFile(caller.accountId, stored, filename, 'batch', Date.now() + expiresSeconds * 1000)
    return jsonResponse(presentFile(file))
  } catch (error) {
    if (stored) await services.tasks.discardFile(stored.id)
    if (error instanceof FileTooLargeError) throw fileTooLarge(maxFileBytes)
    throw error
  } finally {
    clearTimeout(timer)
  }
}

function checkPurpose(purpose: string | undefined): void {
  if (purpose !== 'batch')
    throw new GatewayError('invalid_request', `This gateway stores files for purpose 'batch' only, not '${purpose ?? ''}'.`, {
      param: 'purpose',
    })
}

function fileTooLarge(maxFileBytes: number): GatewayError {
  return new GatewayError('invalid_request', `The file is larger than the ${describeBytes(maxFileBytes)} limit (${maxFileBytes} bytes).`, {
    code: 'file_too_large',
    param: 'file',
  })
}

/** GET /v1/files?after=&limit=&order=&purpose= */
async function listFiles(services: Services, caller: Caller, request: Request): Promise<Response> {
  const query = new URL(request.url).searchParams
  const limit = pageLimit(query.get('limit'), 10_000, 10_000)
  const order = query.get('order') === 'asc' ? 'asc' : 'desc'
  const afterId = query.get('after')
  const after = afterId ? await services.tasks.findFile(caller.accountId, afterId) : undefined
  const files = await services.tasks.repository.listFiles(caller.accountId, {
    limit: limit + 1,
    order,
    after,
    purpose: query.get('purpose') ?? undefined,
  })
  const hasMore = files.length > limit
  const data = files.slice(0, limit).map(presentFile)
  return jsonResponse({ object: 'list', data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: hasMore })
}

/** GET /v1/files/{id}, GET /v1/files/{id}/content, DELETE /v1/files/{id}. */
async function answerFile(services: Services, caller: Caller, request: Request): Promise<Response> {
  const { id, content } = fileIdOf(request)
  const file = await services.tasks.findFile(caller.accountId, id)
  if (!file) throw noSuchFile(id)
  if (request.method === 'DELETE') {
    await services.tasks.repository.deleteFile(id)
    return jsonResponse({ id, object: 'file', deleted: true })
  }
  if (!content) return jsonResponse(presentFile(file))
  return new Response(textStream(services.tasks.fileText(id)), {
    headers: { 'content-type': 'application/octet-stream', 'content-length': String(file.bytes) },
  })
}

/**
 * The upload reads its own body (as a stream, not as text): the key is checked first, from the headers, then the
 * key's rpm and concurrency admit it, as any request.
 */
const upload = defineEndpoint(openAiFront, uploadFile, { admitted: true, body: 'stream' })
const list = defineEndpoint(openAiFront, listFiles)
const one = defineEndpoint(openAiFront, answerFile)

export const openAiFileRoutes = (services: Services) => ({
  '/v1/files': { POST: (request: Request) => upload(services, request), GET: (request: Request) => list(services, request) },
  '/v1/files/*': { GET: (request: Request) => one(services, request), DELETE: (request: Request) => one(services, request) },
})
