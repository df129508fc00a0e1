import type { ChatRequest } from './ir.ts'

type Counter = (text: string) => number
let counter: Counter | undefined

/**
 * Token counts for when an upstream did not report usage (a client that left mid-answer, a stream cut short).
 * Uses the o200k tokenizer shipped inside the `gpt-tokenizer` package: no network, no download. It is an
 * estimate for non-OpenAI models, and usage records mark it as such.
 */
export async function countTokens(text: string): Promise<number> {
  if (text.length === 0) return 0
  return (counter ?? (await loadTokenizer()))(text)
}

/**
 * Load the tokenizer now. Its module takes ~0.4 s to evaluate, blocking the event loop: loaded lazily, the first
 * client to leave mid-answer froze every request in flight for that long (a p99 of ~0.4 s in bench/ at 50 ms
 * upstream delay, 2026-11-23). The gateway calls this before it starts listening.
 */
export async function loadTokenizer(): Promise<Counter> {
  counter ??= (await import('gpt-tokenizer/encoding/o200k_base')).countTokens as Counter
  return counter
}

/** The prompt as plain text, for estimating its tokens. */
export function promptText(request: ChatRequest): string {
  let text = request.system.join('\n')
  for (const message of request.messages) {
    for (const part of message.content) {
      if (part.type === 'text' || part.type === 'reasoning') text += `\n${part.text}`
      else if (part.type === 'tool-call') text += `\n${part.name} ${part.arguments}`
      else if (part.type === 'tool-result') text += `\n${part.content}`
    }
  }
  for (const tool of request.tools ?? []) text += `\n${tool.name} ${tool.description ?? ''} ${JSON.stringify(tool.parameters)}`
  return text
}
