type Counter = (text: string) => number
let counter: Counter | undefined

/**
 * Token counts for when an upstream did not report usage (a client that left mid-answer, a stream cut short), and for
 * count_tokens. Uses the o200k tokenizer shipped inside the `gpt-tokenizer` package: no network, no download. It is an
 * estimate for non-OpenAI models, and usage records mark it as such.
 *
 * Never blocks the event loop for long: a text longer than one slice is counted a slice at a time (cut at whitespace
 * where it can be), yielding between slices, so /healthz and every other request in flight carry on while a 2 MB
 * prompt is counted (one call of 25 MB held everything for up to 3.4 s). And a long run without a break is counted in
 * short pieces: the tokenizer's merging is quadratic in the length of a run — 50,000 'a's took 3 s, 21,000 characters
 * of Japanese 5.4 s — while pieces of 256 change the count by well under 1%.
 */
export async function countTokens(text: string): Promise<number> {
  if (text.length === 0) return 0
  const count = counter ?? (await loadTokenizer())
  if (text.length <= sliceChars) return countSlice(count, text)
  let total = 0
  let since = performance.now()
  for (let start = 0; start < text.length; ) {
    const end = cutPoint(text, start, sliceChars)
    total += countSlice(count, text.slice(start, end))
    start = end
    // A timer rather than setImmediate, so that timers (the upstream timeouts among them) get their turn too.
    if (start < text.length && performance.now() - since >= yieldEveryMs) {
      await new Promise((resolve) => setTimeout(resolve, 0))
      since = performance.now()
    }
  }
  return total
}

/**
 * The tokenizer's count, or ~4 characters a token should it ever fail: what a meter bills when the upstream reported
 * nothing, where an estimate that rejected would leave the request never settled.
 */
export async function estimateTokens(text: string): Promise<number> {
  try {
    return await countTokens(text)
  } catch {
    return Math.ceil(text.length / 4)
  }
}

/** Characters tokenized in one go: about a millisecond of work for ordinary text, a few at worst. */
const sliceChars = 8192
/** The longest the event loop is held between two yields (a yield costs about a millisecond). */
const yieldEveryMs = 5
/** The longest run counted in one piece; runs this long are rare in real text and costly to merge. */
const runChars = 256
const longRun = /\S{256}|\s{256}/

function countSlice(count: Counter, slice: string): number {
  if (!longRun.test(slice)) return count(slice)
  let total = 0
  for (let start = 0; start < slice.length; ) {
    const end = cutPoint(slice, start, runChars)
    total += count(slice.slice(start, end))
    start = end
  }
  return total
}

/** Where a piece of at most `size` characters from `start` ends: before a whitespace near its end, else at `size`. */
function cutPoint(text: string, start: number, size: number): number {
  const end = start + size
  if (end >= text.length) return text.length
  const floor = end - (size >> 3)
  for (let cut = end; cut > floor; cut--) if (isSpace(text.charCodeAt(cut))) return cut
  // No whitespace near the end: cut anywhere, but never between the two halves of a surrogate pair.
  const last = text.charCodeAt(end - 1)
  return last >= 0xd800 && last <= 0xdbff ? end - 1 : end
}

function isSpace(code: number): boolean {
  return code === 32 || code === 10 || code === 9 || code === 13
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
