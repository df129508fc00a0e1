import type { PaidFeature, PaidFeatureUse } from '../../../../core/paid-features.ts'
import { isObject, type Json } from '../../../../protocols/shared/validate.ts'

/** Anthropic's server tools, by the prefix of their versioned type (`web_search_20250305`). */
const serverTools: [prefix: string, feature: PaidFeature][] = [
  ['web_search_', 'web_search'],
  ['web_fetch_', 'web_fetch'],
  ['code_execution_', 'code_execution'],
]

/** What a Messages body asks for that the hold and the price list must know about (ir.ts). */
export function inspectMessagesBilling(body: Json): { externalContent?: string; paidFeatures?: PaidFeatureUse[] } {
  const paidFeatures: PaidFeatureUse[] = []
  if (Array.isArray(body.tools)) {
    body.tools.forEach((tool, index) => {
      const type = isObject(tool) && typeof tool.type === 'string' ? tool.type : ''
      const server = serverTools.find(([prefix]) => type.startsWith(prefix))
      if (server) paidFeatures.push({ feature: server[1], field: `tools[${index}].type` })
    })
  }
  if (body.mcp_servers != null) paidFeatures.push({ feature: 'mcp_servers', field: 'mcp_servers' })
  if (body.container != null) paidFeatures.push({ feature: 'code_execution', field: 'container' })
  // `standard_only` is the plain price; `auto` may be served (and billed) by the priority tier.
  if (body.service_tier != null && body.service_tier !== 'standard_only')
    paidFeatures.push({ feature: 'priority_tier', field: 'service_tier' })
  const externalContent = findExternalContent(body.messages)
  return { ...(externalContent && { externalContent }), ...(paidFeatures.length && { paidFeatures }) }
}

/** The first image or document whose source is a URL or an uploaded file, tool results' blocks included. */
function findExternalContent(messages: unknown): string | undefined {
  if (!Array.isArray(messages)) return undefined
  for (let index = 0; index < messages.length; index++) {
    const found = findInBlocks((messages[index] as Json | undefined)?.content, `messages[${index}].content`)
    if (found) return found
  }
  return undefined
}

function findInBlocks(blocks: unknown, field: string): string | undefined {
  if (!Array.isArray(blocks)) return undefined
  for (let position = 0; position < blocks.length; position++) {
    const block = blocks[position]
    if (!isObject(block)) continue
    const source = block.source
    if (isObject(source) && (source.type === 'url' || source.type === 'file')) return `${field}[${position}].source`
    const nested = findInBlocks(block.content, `${field}[${position}].content`)
    if (nested) return nested
  }
  return undefined
}
