import type { PaidFeatureUse } from '../../../../core/paid-features.ts'
import { isObject, type Json } from '../../../../protocols/shared/validate.ts'

/** Service tiers billed above the plain token price (`flex` is cheaper, `auto`/`default` are the plain price). */
const dearTiers = new Set(['priority', 'scale'])

/** What a Chat Completions body asks for that the hold and the price list must know about (ir.ts). */
export function inspectChatBilling(body: Json): { externalContent?: string; paidFeatures?: PaidFeatureUse[] } | undefined {
  let paidFeatures: PaidFeatureUse[] | undefined
  if (typeof body.service_tier === 'string' && dearTiers.has(body.service_tier))
    (paidFeatures ??= []).push({ feature: 'priority_tier', field: 'service_tier' })
  if (body.web_search_options != null) (paidFeatures ??= []).push({ feature: 'web_search', field: 'web_search_options' })
  const externalContent = findExternalContent(body.messages)
  // The usual request asks for neither: nothing to spread into its IR (no object made).
  if (!paidFeatures && !externalContent) return undefined
  return { ...(externalContent && { externalContent }), ...(paidFeatures && { paidFeatures }) }
}

/** The first image or file part given by URL or file id rather than inline data. */
function findExternalContent(messages: unknown): string | undefined {
  if (!Array.isArray(messages)) return undefined
  for (let index = 0; index < messages.length; index++) {
    const content = (messages[index] as Json | undefined)?.content
    if (!Array.isArray(content)) continue
    for (let position = 0; position < content.length; position++) {
      const part = content[position]
      if (!isObject(part)) continue
      const field = `messages[${index}].content[${position}]`
      if (
        part.type === 'image_url' &&
        isObject(part.image_url) &&
        typeof part.image_url.url === 'string' &&
        !part.image_url.url.startsWith('data:')
      )
        return `${field}.image_url.url`
      if (part.type === 'file' && isObject(part.file) && (part.file.file_id != null || part.file.file_url != null)) return `${field}.file`
    }
  }
  return undefined
}
