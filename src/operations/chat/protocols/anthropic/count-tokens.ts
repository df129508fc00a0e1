import { countTokens } from '../../../../core/estimate.ts'
import { promptText } from '../../core/prompt-text.ts'
import { jsonResponse } from '../../../../edge/respond.ts'
import type { Services } from '../../../../edge/services.ts'
import type { Caller } from '../../../../relay/types.ts'
import { runCount } from '../../../../protocols/shared/count-request.ts'
import { parseJsonBody } from '../../../../protocols/shared/validate.ts'
import { decodeMessagesRequest } from './decode-request.ts'

/**
 * POST /v1/messages/count_tokens: the gateway's own estimate (the tokenizer that meters answers without a usage
 * report), so counting costs nothing and works whatever the upstream. Unknown or forbidden models fail as they
 * would on /v1/messages; the key's request rate and the count body cap apply (count-request.ts).
 */
export function countMessageTokens(services: Services, key: Caller, _request: Request, text: string, requestId: string): Promise<Response> {
  return runCount(services, key, text, async () => {
    const chat = decodeMessagesRequest(parseJsonBody(text, services.config.limits.jsonDepth), { countOnly: true })
    services.relay.resolveModel(key, chat.model)
    return jsonResponse({ input_tokens: await countTokens(promptText(chat)) }, 200, { 'request-id': requestId })
  })
}
