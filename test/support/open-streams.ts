/**
 * Many streamed chat completions at once through the official `openai` SDK, from a process of its own: the test
 * runner's own fetch runs at most 256 requests at once (Bun's default), so it could not open thousands itself. Started
 * with BUN_CONFIG_MAX_HTTP_REQUESTS raised (test/upstream-connections.test.ts).
 *
 *   bun test/support/open-streams.ts BASE_URL KEY MODEL COUNT DEADLINE_MS
 *
 * Prints two JSON lines: once every stream has its first chunk (or DEADLINE_MS passed), the time each took to its first
 * chunk; then, once every stream has ended, how many ended with the whole answer and what failed.
 */
import OpenAI from 'openai'

const [baseURL, apiKey, model, countText, deadlineText] = process.argv.slice(2)
const count = Number(countText)
const client = new OpenAI({ baseURL, apiKey, maxRetries: 0, timeout: 120_000 })
const firstChunkMs: number[] = []
const failures: string[] = []
let reported = false
let completed = 0

function reportFirstChunks(): void {
  if (reported) return
  reported = true
  console.log(JSON.stringify({ firstChunkMs }))
}

const deadline = setTimeout(reportFirstChunks, Number(deadlineText))

async function openStream(index: number): Promise<void> {
  const started = performance.now()
  try {
    const stream = await client.chat.completions.create({ model, stream: true, messages: [{ role: 'user', content: `stream ${index}` }] })
    let text = ''
    for await (const chunk of stream) {
      if (text === '' && chunk.choices[0]?.delta?.content) {
        firstChunkMs.push(performance.now() - started)
        if (firstChunkMs.length === count) reportFirstChunks()
      }
      text += chunk.choices[0]?.delta?.content ?? ''
    }
    if (text === 'first chunk, then the rest.') completed++
    else failures.push(`stream ${index} ended with ${JSON.stringify(text)}`)
  } catch (error) {
    failures.push(`stream ${index}: ${(error as Error).message}`)
  }
}

await Promise.all(Array.from({ length: count }, (_, index) => openStream(index)))
clearTimeout(deadline)
reportFirstChunks()
console.log(JSON.stringify({ completed, failures: failures.slice(0, 10), failed: failures.length }))
