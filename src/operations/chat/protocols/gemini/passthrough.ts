import type { GatewayError } from '../../../../core/errors.ts'
import { formatSse } from '../../../../core/sse.ts'
import type { ForwardRequest, Target } from '../../../../core/provider.ts'
import { isObject, type Json } from '../../../../protocols/shared/validate.ts'
import { encodeGeminiError } from '../../../../protocols/gemini/encode-error.ts'
import { refuseDuplicateKeys } from '../../../../protocols/shared/duplicate-keys.ts'

/**
 * The client's own GenerateContentRequest for a Gemini upstream. The model lives in the URL, so the body is
 * forwarded untouched unless its output cap must come down to the one the hold was sized for.
 */
export function buildGeminiForward(
  text: string,
  body: Json,
  target: Target,
  method: 'generateContent' | 'streamGenerateContent',
): ForwardRequest {
  refuseDuplicateKeys(text) // twins in two spellings (generationConfig / generation_config) are refused at decode
  const stream = method === 'streamGenerateContent'
  const configKey = body.generationConfig === undefined && body.generation_config !== undefined ? 'generation_config' : 'generationConfig'
  const config = isObject(body[configKey]) ? (body[configKey] as Json) : {}
  const capKey = config.maxOutputTokens === undefined && config.max_output_tokens !== undefined ? 'max_output_tokens' : 'maxOutputTokens'
  const limit = target.model.maxOutputTokens
  const current = config[capKey]
  const forwarded =
    typeof current === 'number' && current <= limit ? text : JSON.stringify({ ...body, [configKey]: { ...config, [capKey]: limit } })
  const model = target.upstreamModel.replace(/^models\//, '')
  return { path: `/v1beta/models/${model}:${method}${stream ? '?alt=sse' : ''}`, body: forwarded, stream }
}

export function encodeRawGeminiError(error: GatewayError): string {
  return formatSse(JSON.stringify(encodeGeminiError(error)))
}
