import { GatewayError } from '../../core/errors.ts'
import { Pacer } from '../../core/pace.ts'
import type { TaskRecord, TaskService } from '../../edge/tasks.ts'
import type { Relay } from '../../relay/relay.ts'
import type { Caller, Operation } from '../../relay/types.ts'
import type { Exchange } from './client-protocol.ts'
import type { Json } from './validate.ts'

/** One batch item, decoded by its protocol's own decoder, ready for the relay. */
export interface DecodedItem {
  /** The protocol name recorded with its usage row (`openai-chat`, `anthropic`, …). */
  protocol: string
  /** The kind of call the item is (chat, embeddings). */
  operation: Operation
  exchange: Exchange
  inputBound: number
}

/**
 * What a protocol lends the task runner for its batches: how an item's stored body becomes a relay call, and what
 * the protocol writes when a batch ends (OpenAI's output and error files).
 */
export interface BatchItemCodec {
  /** `parsed`: the body already parsed (checking a batch has it at hand: one parse a request, not two). */
  decode(body: string, task: Pick<TaskRecord, 'endpoint' | 'model'>, requestId: string, parsed?: Json): DecodedItem
  finalize?(task: TaskRecord, tasks: TaskService): Promise<{ outputFileId: string | null; errorFileId: string | null }>
}

/**
 * A stand-in for the HTTP request an item never had (decoders read headers and paths from it, never its body), one
 * per path: a Request is a native object freed only when collected, and a batch checks or runs 50,000 items.
 */
export function itemRequest(path: string): Request {
  let request = standIns.get(path)
  if (!request) {
    if (standIns.size >= 64) standIns.clear() // paths are a batch endpoint or a model's: few, but a client names models
    standIns.set(path, (request = new Request(`http://batch.invalid${path}`, { method: 'POST' })))
  }
  return request
}

const standIns = new Map<string, Request>()

/**
 * Check one item before anything runs: its protocol's decoder accepts it and the key may use its model. Any failure
 * is a 400 naming where the item is (`line 3`, `requests[2]`) and its custom_id.
 */
export function checkItem(
  relay: Relay,
  key: Caller,
  codec: BatchItemCodec,
  task: Pick<TaskRecord, 'endpoint' | 'model'>,
  body: string,
  where: string,
  parsed?: Json,
): void {
  try {
    const { exchange, operation } = codec.decode(body, task, 'batch_check', parsed)
    if (exchange.request.stream)
      throw new GatewayError('invalid_request', 'Batch requests cannot be streamed: remove "stream".', { param: 'stream' })
    relay.resolveModel(key, exchange.request.model, operation)
  } catch (error) {
    throw itemInvalid(where, error)
  }
}

/** A 400 naming the item at fault, whatever the reason was. */
export function itemInvalid(where: string, error: unknown): GatewayError {
  const message = error instanceof GatewayError ? error.message : (error as Error).message
  const param = error instanceof GatewayError && error.param ? `${where}.${error.param}` : where
  return new GatewayError('invalid_request', `${where}: ${message}`, { code: 'invalid_batch_item', param })
}

/** Each custom_id once: the second use is refused naming both places. */
export class CustomIds {
  private readonly seen = new Map<string, string>()

  add(customId: string, where: string): void {
    const first = this.seen.get(customId)
    if (first)
      throw new GatewayError(
        'invalid_request',
        `${where}: custom_id '${customId}' is already used by ${first}; custom_ids must be unique.`,
        { code: 'duplicate_custom_id', param: where },
      )
    this.seen.set(customId, where)
  }
}

/** A batch's inline requests, each checked in order, yielding to the event loop every few ms (there may be 50,000). */
export async function checkEach<T>(list: unknown[], check: (entry: unknown, index: number) => T): Promise<T[]> {
  const pacer = new Pacer()
  const checked: T[] = []
  for (let index = 0; index < list.length; index++) {
    await pacer.pace()
    checked.push(check(list[index], index))
  }
  return checked
}
