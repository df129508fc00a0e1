/**
 * Upstream error text on its way to a client and to the log, made safe: at most `maxChars` characters, with anything
 * that looks like a credential replaced. An upstream refusing our key may quote it (`Incorrect API key provided:
 * sk-proj-abc1…`), or a proxy may echo the Authorization header it got: relayed verbatim, the operator's own
 * upstream key reached the client.
 */
const maxUpstreamTextChars = 1024

const redacted = '[redacted]'

/**
 * Key-shaped text: `Bearer …`/`Basic …`, OpenAI/Anthropic-style `sk-…` keys (masked ones too), Google `AIza…` keys,
 * and whatever stands beside a run of asterisks (`****abc123`: a masked key's visible prefix or suffix).
 */
const secretShapes =
  /\b(?:Bearer|Basic)\s+[^\s"',;]+|\b(?:sk|rk|pk)-[A-Za-z0-9_*.\-]{6,}|\bAIza[A-Za-z0-9_\-]{8,}|[A-Za-z0-9_\-]*\*{3,}[A-Za-z0-9_\-]*/gi

/** Runs long enough that one found inside the configured key is a piece of it, not a coincidence. */
const keyPieces = /[A-Za-z0-9_\-]{8,}/g

/** The text with credentials replaced and cut to the cap; `apiKey` (the provider's own) goes in whole or in part. */
export function scrubUpstreamText(text: string, apiKey?: string): string {
  let scrubbed = redactKey(text, apiKey).replace(secretShapes, redacted)
  if (scrubbed.length > maxUpstreamTextChars) scrubbed = `${scrubbed.slice(0, maxUpstreamTextChars)}… (cut)`
  return scrubbed
}

/** Every occurrence of the configured key, and every run of 8+ characters found inside it, replaced; no cap. */
export function redactKey(text: string, apiKey: string | undefined): string {
  if (!apiKey || apiKey.length < 8) return text
  return text
    .split(apiKey)
    .join(redacted)
    .replace(keyPieces, (piece) => (apiKey.includes(piece) ? redacted : piece))
}
