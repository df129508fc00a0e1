import type { GatewayError } from './errors.ts'

/**
 * What the relay knows of any operation's request and answer (chat, embeddings…): each operation's own IR
 * (operations/<name>/core) says the rest, and only that operation's parts read it.
 */

/** What every operation's request has, whatever else its IR holds. */
export interface OperationRequest {
  /** The gateway model id the client asked for (not the upstream id). */
  readonly model: string
  /** Whether the answer is streamed to the client (the batch runner turns it off). */
  stream: boolean
}

/** One event of a streamed answer, in its operation's IR; a stream that fails ends with an `error` event. */
export interface AnswerEvent {
  readonly type: string
}

/** The event a failing stream ends with, in every operation's IR: nothing follows it. */
export interface ErrorEvent extends AnswerEvent {
  readonly type: 'error'
  readonly error: GatewayError
}

export function isErrorEvent(event: AnswerEvent): event is ErrorEvent {
  return event.type === 'error'
}
