/**
 * Tool calls as the vendors' wire formats need them, shared by every encoder that writes one.
 */

/**
 * A tool call's arguments as the JSON object that Anthropic's `input` and Gemini's `args` must be.
 * The IR carries arguments as JSON text because OpenAI streams them as text; text cut short by a token limit is
 * not JSON, and an empty or unparseable text becomes `{}` so the message stays valid for the next turn. A JSON
 * value that is not an object (a model's bare string or array) is kept as `{value}` rather than dropped.
 */
export function parseToolArguments(text: string): Record<string, unknown> {
  if (!text.trim()) return {}
  try {
    const value = JSON.parse(text)
    return value && typeof value === 'object' && !Array.isArray(value) ? value : { value }
  } catch {
    return {}
  }
}

/**
 * A tool call id every upstream accepts: Anthropic allows only letters, digits, `_` and `-`, and ids are kept to
 * 64 characters; other vendors' ids may hold more. The same id always maps the same way, so a call and the result
 * that answers it stay paired.
 */
export function safeToolCallId(id: string): string {
  return id.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64) || 'toolu_unknown'
}
