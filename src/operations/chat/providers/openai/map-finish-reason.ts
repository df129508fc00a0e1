import type { FinishReason } from '../../core/ir.ts'

export function mapOpenAiFinishReason(reason: string | null | undefined): FinishReason {
  switch (reason) {
    case 'stop':
      return 'stop'
    case 'length':
      return 'length'
    case 'tool_calls':
    case 'function_call':
      return 'tool-calls'
    case 'content_filter':
      return 'content-filter'
    default:
      return reason ? 'other' : 'stop'
  }
}
