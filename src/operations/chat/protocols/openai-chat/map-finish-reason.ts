import type { FinishReason } from '../../core/ir.ts'

export function encodeFinishReason(reason: FinishReason | undefined): string {
  switch (reason) {
    case 'length':
      return 'length'
    case 'tool-calls':
      return 'tool_calls'
    case 'content-filter':
    case 'refusal':
      return 'content_filter'
    default:
      return 'stop'
  }
}
