/**
 * A tool call's arguments as the JSON object that Anthropic's `input` (and Gemini's `args`) must be.
 * The IR carries arguments as JSON text because OpenAI streams them as text; text cut short by a token limit is
 * not JSON, and an empty or unparseable text becomes `{}` so the message stays valid for the next turn.
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
