/**
 * What a benchmark sends (`--operation`): a chat completion (streamed with `--stream`), or an embeddings request as
 * the official OpenAI SDK sends it (one text, base64 vectors), or a speech request (its audio relayed as it comes) — the
 * same path and body to Tollgate and the passthrough.
 */
export function workload(operation: string, stream: boolean): { path: string; body: string; label: string } {
  if (operation === 'embeddings') {
    const body = JSON.stringify({ model: 'bench-embed', input: 'How fast is this gateway?', encoding_format: 'base64' })
    return { path: '/v1/embeddings', body, label: 'embeddings' }
  }
  if (operation === 'speech') {
    const body = JSON.stringify({ model: 'bench-tts', input: 'How fast is this gateway?', voice: 'alloy', response_format: 'wav' })
    return { path: '/v1/audio/speech', body, label: 'speech (48 KB of audio in 6 chunks)' }
  }
  if (operation === 'rerank') {
    const body = JSON.stringify({
      model: 'bench-rerank',
      query: 'How fast is this gateway?',
      documents: ['Very fast.', 'Slow.', 'It depends.'],
      top_n: 2,
    })
    return { path: '/v1/rerank', body, label: 'rerank' }
  }
  if (operation === 'images') {
    const body = JSON.stringify({ model: 'bench-image', prompt: 'A fast gateway', size: '256x256' })
    return { path: '/v1/images/generations', body, label: 'image generations (one 256x256 image each)' }
  }
  if (operation !== 'chat') throw new Error(`--operation must be chat, embeddings, rerank, images or speech, not ${operation}`)
  const body = JSON.stringify({ model: 'bench-model', stream, messages: [{ role: 'user', content: 'How fast is this gateway?' }] })
  return { path: '/v1/chat/completions', body, label: stream ? 'streamed chat completions' : 'non-streaming chat completions' }
}
