import type { FinishReason } from '../../core/ir.ts'

export function encodeStopReason(reason: FinishReason | undefined): string {
  switch (reason) {
    case 'length':
      return 'max_tokens'
    case 'tool-calls':
      return 'tool_use'
    case 'content-filter':
    case 'refusal':
      return 'refusal'
    default:
      return 'end_turn'
  }
}
