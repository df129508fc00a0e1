import { GatewayError } from '../../core/errors.ts'

/**
 * A forward asked for after the answer began, when the exchange has let go of the client's body (AnswerCodec's
 * `answerBegun`): a bug in the relay, thrown rather than sending an empty body upstream.
 */
export function bodyReleased(): GatewayError {
  return new GatewayError('internal', "The request's body was let go once its answer began: it cannot be forwarded again")
}
