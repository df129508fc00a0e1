import { countTokens, promptText } from '../../core/estimate.ts'
import { newRequestId } from '../../core/ids.ts'
import { jsonResponse } from '../../edge/respond.ts'
import type { Services } from '../../edge/services.ts'
import { parseJsonBody } from '../shared/validate.ts'
import { authenticateAnthropic } from './authenticate.ts'
import { decodeMessagesRequest } from './decode-request.ts'
import { anthropicErrorResponse } from './error-response.ts'

/**
 * POST /v1/messages/count_tokens: the gateway's own estimate (the tokenizer that meters answers without a usage
 * report), so counting costs nothing and works whatever the upstream. Unknown or forbidden models fail as they
 * would on /v1/messages.
 */
export async function countMessageTokens(services: Services, request: Request): Promise<Response> {
  const requestId = newRequestId()
  try {
    const text = await request.text()
    const key = await authenticateAnthropic(services.keys, request)
    const chat = decodeMessagesRequest(parseJsonBody(text), { countOnly: true })
    services.relay.resolveModel(key, chat.model)
    return jsonResponse({ input_tokens: await countTokens(promptText(chat)) }, 200, { 'request-id': requestId })
  } catch (error) {
    return anthropicErrorResponse(error, requestId)
  }
}
