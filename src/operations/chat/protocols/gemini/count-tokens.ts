import { invalidRequest } from '../../../../core/errors.ts'
import { countTokens } from '../../../../core/estimate.ts'
import { promptText } from '../../core/prompt-text.ts'
import { jsonResponse } from '../../../../edge/respond.ts'
import type { Services } from '../../../../edge/services.ts'
import type { Caller } from '../../../../relay/types.ts'
import { runCount } from '../../../../protocols/shared/count-request.ts'
import { isObject, parseJsonBody } from '../../../../protocols/shared/validate.ts'
import { decodeGeminiRequest } from './decode-request.ts'
import { modelPathOf, splitModelPath } from '../../../../protocols/gemini/model-path.ts'

/**
 * POST …:countTokens, answered here with the gateway's own tokenizer (an estimate for non-OpenAI models): the body is
 * `{contents}` or `{generateContentRequest}`, as the API takes either. The key's request rate and the count body cap
 * apply (count-request.ts).
 */
export function countGeminiTokens(services: Services, key: Caller, request: Request, text: string): Promise<Response> {
  return runCount(services, key, text, async () => {
    const { model } = splitModelPath(modelPathOf(new URL(request.url)))
    const body = parseJsonBody(text, services.config.limits.jsonDepth)
    services.relay.resolveModel(key, model)
    const inner = body.generateContentRequest ?? body.generate_content_request
    if (inner !== undefined && !isObject(inner))
      throw invalidRequest("Invalid type for 'generateContentRequest': expected an object.", 'generateContentRequest')
    const chat = decodeGeminiRequest(inner ?? body, model, false)
    return jsonResponse({ totalTokens: await countTokens(promptText(chat)) })
  })
}
