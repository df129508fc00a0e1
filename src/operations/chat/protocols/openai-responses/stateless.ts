import { GatewayError } from '../../../../core/errors.ts'

/**
 * The gateway keeps no responses, conversations or files: every request must carry its whole conversation.
 * Anything that points at stored state gets this 400, which says so and what to send instead.
 */
export function statelessError(detail: string, param: string): GatewayError {
  return new GatewayError('invalid_request', `This gateway is stateless and stores no responses, conversations or files: ${detail}`, {
    param,
    code: 'stateless_gateway',
  })
}

/** Top-level fields that only make sense against stored state, and what to do instead. */
export function refuseStoredState(body: Record<string, unknown>): void {
  if (body.previous_response_id != null) {
    throw statelessError(
      "'previous_response_id' cannot be resolved. Send the full conversation in 'input' (and set store: false).",
      'previous_response_id',
    )
  }
  if (body.conversation != null)
    throw statelessError("'conversation' cannot be resolved. Send the full conversation in 'input'.", 'conversation')
  if (body.prompt != null)
    throw statelessError("stored prompt templates ('prompt') cannot be resolved. Send the instructions in 'instructions'.", 'prompt')
  if (body.background === true)
    throw statelessError("background responses ('background': true) would need to be stored. Use stream: true instead.", 'background')
}

/** GET/DELETE /v1/responses/{id}: nothing was ever stored, so every id is unknown. */
export function responseNotStored(id: string): GatewayError {
  return new GatewayError('not_found', `No response with id '${id}': this gateway is stateless and does not store responses.`, {
    code: 'response_not_found',
    param: 'response_id',
  })
}
