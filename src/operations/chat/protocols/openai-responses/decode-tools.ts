import { invalidRequest } from '../../../../core/errors.ts'
import type { ToolChoice, ToolDefinition } from '../../core/ir.ts'
import {
  optionalBoolean,
  optionalSchema,
  optionalString,
  requireArray,
  requireObject,
  requireString,
} from '../../../../protocols/shared/validate.ts'

/** A function the client declared inside a `namespace` tool: the IR knows it by a flat name. */
export interface NamespacedName {
  namespace: string
  name: string
}

export interface DecodedTools {
  tools?: ToolDefinition[]
  /** Flat IR name → the namespace and name the client knows, to give calls back their namespace. */
  namespaced: Map<string, NamespacedName>
}

/**
 * Hosted tools run on OpenAI's servers; no upstream behind the gateway can run them. Web search is only an offer
 * the model may ignore (the Codex CLI always sends it), so it is dropped; the others change what the client gets
 * back and are refused.
 */
const droppedTools = new Set(['web_search', 'web_search_preview', 'web_search_2025_08_26', 'web_search_preview_2025_03_11'])

/** Namespaced functions become `namespace__name`: valid as a tool name for every upstream and unlikely to collide. */
export function flattenName(namespace: string, name: string): string {
  return `${namespace}__${name}`
}

function decodeFunction(tool: Record<string, unknown>, field: string): ToolDefinition {
  return {
    name: requireString(tool.name, `${field}.name`),
    description: optionalString(tool.description, `${field}.description`),
    parameters: optionalSchema(tool.parameters, `${field}.parameters`),
    strict: optionalBoolean(tool.strict, `${field}.strict`),
  }
}

function refuseTool(type: string, field: string): never {
  throw invalidRequest(
    `Invalid value for '${field}.type': '${type}' tools are not supported by this gateway; only 'function' tools (optionally grouped in a 'namespace') are.`,
    `${field}.type`,
  )
}

/** `tools`: flat function tools, namespaces of functions; hosted web search dropped, other hosted tools refused. */
export function decodeTools(value: unknown): DecodedTools {
  const namespaced = new Map<string, NamespacedName>()
  if (value === undefined || value === null) return { namespaced }
  const tools: ToolDefinition[] = []
  const add = (tool: ToolDefinition, field: string) => {
    if (tools.some((other) => other.name === tool.name))
      throw invalidRequest(`Invalid value for '${field}.name': the tool name '${tool.name}' is declared twice.`, `${field}.name`)
    tools.push(tool)
  }
  for (const [index, item] of requireArray(value, 'tools').entries()) {
    const field = `tools[${index}]`
    const tool = requireObject(item, field)
    const type = requireString(tool.type, `${field}.type`)
    if (type === 'function') add(decodeFunction(tool, field), field)
    else if (type === 'namespace') {
      const namespace = requireString(tool.name, `${field}.name`)
      for (const [inner, entry] of requireArray(tool.tools, `${field}.tools`).entries()) {
        const innerField = `${field}.tools[${inner}]`
        const function_ = requireObject(entry, innerField)
        if (function_.type !== 'function') refuseTool(String(function_.type), innerField)
        const decoded = decodeFunction(function_, innerField)
        const flat = flattenName(namespace, decoded.name)
        namespaced.set(flat, { namespace, name: decoded.name })
        add({ ...decoded, name: flat }, innerField)
      }
    } else if (!droppedTools.has(type)) refuseTool(type, field)
  }
  return { tools: tools.length ? tools : undefined, namespaced }
}

/**
 * `tool_choice`: `none|auto|required`, `{type:"function",name}` or `{type:"allowed_tools",mode,tools}` (which
 * narrows the offered tools to the listed functions). Forcing a hosted tool cannot be honoured.
 */
export function decodeToolChoice(value: unknown, decoded: DecodedTools): { toolChoice?: ToolChoice; tools?: ToolDefinition[] } {
  const tools = decoded.tools
  if (value === undefined || value === null) return { tools }
  if (value === 'auto' || value === 'none' || value === 'required') return { toolChoice: { type: value }, tools }
  const choice = requireObject(value, 'tool_choice')
  const known = (name: string, field: string, namespace?: string) => {
    const flat = namespace ? flattenName(namespace, name) : name
    if (!tools?.some((tool) => tool.name === flat))
      throw invalidRequest(`Invalid value for '${field}': no function named '${name}' is declared in 'tools'.`, field)
    return flat
  }
  if (choice.type === 'function') {
    const name = requireString(choice.name, 'tool_choice.name')
    return {
      toolChoice: { type: 'tool', name: known(name, 'tool_choice.name', optionalString(choice.namespace, 'tool_choice.namespace')) },
      tools,
    }
  }
  if (choice.type === 'allowed_tools') {
    const mode = choice.mode === 'required' ? 'required' : choice.mode === 'auto' || choice.mode === undefined ? 'auto' : undefined
    if (!mode) throw invalidRequest("Invalid value for 'tool_choice.mode': expected 'auto' or 'required'.", 'tool_choice.mode')
    const allowed = new Set<string>()
    for (const [index, item] of requireArray(choice.tools, 'tool_choice.tools').entries()) {
      const entry = requireObject(item, `tool_choice.tools[${index}]`)
      if (entry.type !== 'function') continue // hosted tools are not offered upstream anyway
      allowed.add(
        known(
          requireString(entry.name, `tool_choice.tools[${index}].name`),
          `tool_choice.tools[${index}].name`,
          optionalString(entry.namespace, `tool_choice.tools[${index}].namespace`),
        ),
      )
    }
    return { toolChoice: { type: mode }, tools: tools?.filter((tool) => allowed.has(tool.name)) }
  }
  throw invalidRequest(
    "Invalid value for 'tool_choice': expected 'none', 'auto', 'required', {type:'function',name} or {type:'allowed_tools',mode,tools}; hosted tools cannot be forced through this gateway.",
    'tool_choice',
  )
}
