import { invalidRequest } from '../../../../core/errors.ts'
import type { PaidFeature, PaidFeatureUse } from '../../../../core/paid-features.ts'
import { isObject, type Json } from '../../../../protocols/shared/validate.ts'

/** Built-in tools billed beyond tokens (or not bounded by the request's bytes), in both spellings the API takes. */
const builtInTools: [name: string, feature: PaidFeature][] = [
  ['googleSearch', 'web_search'],
  ['google_search', 'web_search'],
  ['googleSearchRetrieval', 'web_search'],
  ['google_search_retrieval', 'web_search'],
  ['urlContext', 'web_fetch'],
  ['url_context', 'web_fetch'],
  ['codeExecution', 'code_execution'],
  ['code_execution', 'code_execution'],
]

/** What a GenerateContentRequest asks for that the hold and the price list must know about (ir.ts). */
export function inspectGeminiBilling(body: Json): { externalContent?: string; paidFeatures?: PaidFeatureUse[] } {
  refuseTwins(body, '')
  if (isObject(body.generationConfig)) refuseTwins(body.generationConfig, 'generationConfig.')
  if (isObject(body.generation_config)) refuseTwins(body.generation_config, 'generation_config.')
  const paidFeatures: PaidFeatureUse[] = []
  if (Array.isArray(body.tools)) {
    body.tools.forEach((tool, index) => {
      if (!isObject(tool)) return
      for (const [name, feature] of builtInTools)
        if (tool[name] !== undefined) paidFeatures.push({ feature, field: `tools[${index}].${name}` })
    })
  }
  for (const name of ['cachedContent', 'cached_content'])
    if (body[name] != null) paidFeatures.push({ feature: 'cached_content', field: name })
  const externalContent = findExternalContent(body.contents)
  return { ...(externalContent && { externalContent }), ...(paidFeatures.length && { paidFeatures }) }
}

/**
 * The API reads both `generationConfig` and `generation_config`; the gateway reads one. A body with both could be
 * checked in one spelling and obeyed upstream in the other (an output cap, say), so it is refused.
 */
function refuseTwins(object: Json, prefix: string): void {
  for (const name of Object.keys(object)) {
    if (!/[A-Z]/.test(name)) continue
    const snake = name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`)
    if (object[snake] !== undefined) {
      throw invalidRequest(`Send '${prefix}${name}' or '${prefix}${snake}', not both.`, `${prefix}${snake}`)
    }
  }
}

/** The first part given by `fileData` (a file URI: its size is not in the body). */
function findExternalContent(contents: unknown): string | undefined {
  if (!Array.isArray(contents)) return undefined
  for (let index = 0; index < contents.length; index++) {
    const parts = (contents[index] as Json | undefined)?.parts
    if (!Array.isArray(parts)) continue
    for (let position = 0; position < parts.length; position++) {
      const part = parts[position]
      if (isObject(part) && (part.fileData != null || part.file_data != null)) return `contents[${index}].parts[${position}].fileData`
    }
  }
  return undefined
}
