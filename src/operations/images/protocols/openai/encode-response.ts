import type { ImagesAnswer } from '../../core/ir.ts'

/**
 * IR → OpenAI's images answer: each image as the client asked (`url`, or `b64_json`; bytes asked for as a URL
 * become a `data:` URL, as the gateway keeps no files), what the upstream says it made, and `usage` — the tokens
 * billed, when the model is priced by them or its upstream reports them.
 */
export function encodeOpenAiImages(answer: ImagesAnswer, responseFormat: 'url' | 'b64_json' | undefined): string {
  const mediaType = `image/${answer.outputFormat ?? 'png'}`
  const data = answer.images.map((image) => {
    const item: Record<string, string> =
      responseFormat === 'url' || (image.b64 === undefined && image.url !== undefined)
        ? { url: image.url ?? `data:${mediaType};base64,${image.b64}` }
        : { b64_json: image.b64! }
    if (image.revisedPrompt !== undefined) item.revised_prompt = image.revisedPrompt
    return item
  })
  const body: Record<string, unknown> = { created: answer.created, data }
  if (answer.background !== undefined) body.background = answer.background
  if (answer.outputFormat !== undefined) body.output_format = answer.outputFormat
  if (answer.size !== undefined) body.size = answer.size
  if (answer.quality !== undefined) body.quality = answer.quality
  const usage = answer.usage
  if (usage && !usage.estimated && usage.inputTokens + usage.outputTokens > 0) {
    body.usage = {
      input_tokens: usage.inputTokens,
      output_tokens: usage.outputTokens,
      total_tokens: usage.inputTokens + usage.outputTokens,
      input_tokens_details: { text_tokens: usage.inputTokens, image_tokens: 0 },
    }
  }
  return JSON.stringify(body)
}
