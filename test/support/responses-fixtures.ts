import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import OpenAI from 'openai'
import type { FinishReason, StreamEvent, Usage } from '../../src/operations/chat/core/ir.ts'
import { SseParser } from '../../src/core/sse.ts'

/** Recorded OpenAI Responses captures (see test/fixtures/openai-responses/README.md) and helpers to replay them. */
export const fixtureDirectory = join(import.meta.dir, '..', 'fixtures', 'openai-responses')

export type Recorded = Record<string, any>

export function readFixture(name: string): string {
  return readFileSync(join(fixtureDirectory, name), 'utf8')
}

export function readJsonFixture(name: string): Recorded {
  return JSON.parse(readFixture(name))
}

/** A recorded stream as its events: JSON-per-line files, or raw SSE (where each `event:` name must match `type`). */
export function readStreamFixture(name: string): Recorded[] {
  const text = readFixture(name)
  if (name.endsWith('.jsonl'))
    return text
      .split('\n')
      .filter((line) => line.trim())
      .map((line) => JSON.parse(line))
  const parser = new SseParser()
  return [...parser.push(text), ...parser.finish()].map((event) => {
    const data = JSON.parse(event.data)
    if (event.event !== data.type) throw new Error(`fixture ${name}: event name ${event.event} differs from type ${data.type}`)
    return data
  })
}

/** Usage as the API reported it, in IR terms. */
export function usageFromRecorded(usage: Recorded): Usage {
  return {
    inputTokens: usage.input_tokens,
    cachedInputTokens: usage.input_tokens_details?.cached_tokens ?? 0,
    cacheWriteTokens: usage.input_tokens_details?.cache_write_tokens ?? 0,
    outputTokens: usage.output_tokens,
    reasoningTokens: usage.output_tokens_details?.reasoning_tokens ?? 0,
  }
}

/**
 * The IR events an upstream would have produced for the same answer as a recorded stream: one block per output
 * item, the same text and argument fragments, the same usage. Encoding these must give back the recorded shape.
 */
export function recordedToIr(events: Recorded[]): StreamEvent[] {
  const first = events[0]!.response
  const ir: StreamEvent[] = [{ type: 'start', id: first.id, model: first.model, created: first.created_at }]
  let reason: FinishReason = 'stop'
  for (const event of events) {
    const index = event.output_index
    switch (event.type) {
      case 'response.output_item.added':
        if (event.item.type === 'message') ir.push({ type: 'text-start', index })
        else if (event.item.type === 'reasoning') ir.push({ type: 'reasoning-start', index })
        else if (event.item.type === 'function_call')
          ir.push({ type: 'tool-call-start', index, id: event.item.call_id, name: event.item.name })
        break
      case 'response.output_text.delta':
        ir.push({ type: 'text-delta', index, text: event.delta })
        break
      case 'response.reasoning_summary_text.delta':
        ir.push({ type: 'reasoning-delta', index, text: event.delta })
        break
      case 'response.function_call_arguments.delta':
        ir.push({ type: 'tool-call-delta', index, arguments: event.delta })
        break
      case 'response.output_item.done':
        if (event.item.type === 'message') ir.push({ type: 'text-end', index })
        else if (event.item.type === 'function_call') {
          reason = 'tool-calls'
          ir.push({ type: 'tool-call-end', index })
        } else if (event.item.type === 'reasoning') {
          if (event.item.encrypted_content) ir.push({ type: 'reasoning-signature', index, signature: event.item.encrypted_content })
          ir.push({ type: 'reasoning-end', index })
        }
        break
      case 'response.completed':
        ir.push({ type: 'finish', reason })
        ir.push({ type: 'usage', usage: usageFromRecorded(event.response.usage) })
        break
    }
  }
  return ir
}

export async function* replay<T>(items: T[]): AsyncGenerator<T> {
  for (const item of items) yield item
}

/** Recorded or encoded events as the SSE bytes the API sends: `event: <type>` then the JSON. */
export function toSse(events: Recorded[]): string {
  return events.map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`).join('')
}

/** The official SDK reading a canned SSE body, as it would read the wire: no server involved. */
export function sdkReading(sse: string): OpenAI {
  return new OpenAI({
    apiKey: 'unused',
    baseURL: 'http://codec.invalid/v1',
    maxRetries: 0,
    fetch: async () => new Response(sse, { headers: { 'content-type': 'text/event-stream' } }),
  })
}

/** Sorted keys, ignoring the API's per-event random padding (`obfuscation`), which carries no meaning. */
export function keysOf(value: Recorded | undefined): string[] {
  return Object.keys(value ?? {})
    .filter((key) => key !== 'obfuscation')
    .sort()
}

/** What an output item says (kind, text, call and its arguments, message and summary text), to compare ours with the API's. */
export function itemFacts(item: Recorded): unknown[] {
  return [item.type, item.text, item.call_id, item.name, item.arguments, item.content?.[0]?.text, item.summary?.[0]?.text]
}
