import { encodeOpenAiError } from './encode-error.ts'
import { openAiChat } from '../../operations/chat/protocols/openai-chat/protocol.ts'
import { openAiResponses } from '../../operations/chat/protocols/openai-responses/protocol.ts'
import { openAiEmbeddings } from '../../operations/embeddings/protocols/openai/protocol.ts'
import { gatewayErrorOf, type ItemRecord, type TaskRecord, type TaskService } from '../../edge/tasks.ts'
import { type BatchItemCodec, itemRequest } from '../shared/batch-item.ts'
import type { ClientProtocol } from '../shared/client-protocol.ts'
import { parseJsonBody, storedItemDepth } from '../shared/validate.ts'

/** The endpoints an OpenAI batch may target, each with the protocol its items are decoded and answered by. */
const batchProtocols: Record<string, ClientProtocol> = {
  '/v1/chat/completions': openAiChat,
  '/v1/responses': openAiResponses,
  '/v1/embeddings': openAiEmbeddings,
}

export const batchEndpoints = Object.keys(batchProtocols)

/** OpenAI batch items: the `body` of each input line, decoded as its endpoint's protocol. */
export const openAiBatchItems: BatchItemCodec = {
  decode(body, task, requestId, parsed) {
    const protocol = batchProtocols[task.endpoint]!
    const exchange = protocol.decode(parsed ?? parseJsonBody(body, storedItemDepth), body, itemRequest(task.endpoint), requestId)
    return { protocol: protocol.name, operation: protocol.operation, exchange, inputBound: Buffer.byteLength(body) }
  },
  async finalize(task, tasks) {
    const suffix = task.id.slice('batch_'.length)
    const output = await tasks.writeFile(
      `file-${suffix}-output`,
      task.accountId,
      `${task.id}_output.jsonl`,
      task.id,
      linesOf(tasks, task, true),
    )
    const errors = await tasks.writeFile(
      `file-${suffix}-errors`,
      task.accountId,
      `${task.id}_error.jsonl`,
      task.id,
      linesOf(tasks, task, false),
    )
    return { outputFileId: output?.id ?? null, errorFileId: errors?.id ?? null }
  },
}

/** The output file (answered items) or the error file (every other), as OpenAI writes them. */
async function* linesOf(tasks: TaskService, task: TaskRecord, answered: boolean): AsyncGenerator<string> {
  for await (const item of tasks.items(task.id)) {
    if ((item.status === 'succeeded') === answered) yield outputLine(item)
  }
}

/** `{id, custom_id, response: {status_code, request_id, body} | null, error: {code, message} | null}`. */
export function outputLine(item: ItemRecord): string {
  const head = `{"id":${JSON.stringify(item.id)},"custom_id":${JSON.stringify(item.customId)},`
  if (item.status === 'succeeded')
    return `${head}"response":{"status_code":200,"request_id":${JSON.stringify(item.id)},"body":${item.result}},"error":null}`
  if (item.status === 'errored') {
    const error = gatewayErrorOf(JSON.parse(item.result!))
    return `${head}"response":${JSON.stringify({ status_code: error.status, request_id: item.id, body: encodeOpenAiError(error) })},"error":null}`
  }
  const code = item.status === 'canceled' ? 'batch_cancelled' : 'batch_expired'
  const message =
    item.status === 'canceled' ? 'This request was not run: the batch was cancelled.' : 'This request was not run before the batch expired.'
  return `${head}"response":null,"error":${JSON.stringify({ code, message })}}`
}
