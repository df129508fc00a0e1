import type { RecordedRequest } from '../upstream.ts'
import { weatherTool } from './conversation.ts'
import { structuredSchema } from './plans.ts'

/**
 * Issue 17's conformance matrix: each request feature as every client protocol says it, what the gateway does with
 * it toward each upstream kind (its policy), and how a test sees that the upstream got its meaning. The gateway's
 * encoders implement the policy; test/conformance.test.ts checks every cell against a recording upstream and writes
 * docs/conformance.md from this table and the run.
 */
export type ClientName = 'openai-chat' | 'openai-responses' | 'anthropic' | 'gemini'
export type Kind = 'openai' | 'anthropic' | 'gemini'
export type Policy = 'carried' | 'emulated' | 'refused' | 'ignored'
export type Json = Record<string, any>

export const clientNames: ClientName[] = ['openai-chat', 'openai-responses', 'anthropic', 'gemini']
export const kinds: Kind[] = ['openai', 'anthropic', 'gemini']
/** The upstream kind that speaks each client protocol, to which requests are forwarded as bytes. */
export const nativeKind: Partial<Record<ClientName, Kind>> = { 'openai-chat': 'openai', anthropic: 'anthropic', gemini: 'gemini' }

export interface Feature {
  name: string
  /** The request as each client protocol says it (model and, for Anthropic, max_tokens are added); absent: it cannot. */
  body: Partial<Record<ClientName, Json>>
  stream?: boolean
  policy: Record<Kind, Policy>
  /** For carried and emulated cells: the upstream's request shows the feature's meaning. */
  received: Partial<Record<Kind, (request: RecordedRequest) => boolean>>
  /** For features whose evidence is in the answer (calls kept, usage): the client's whole answer shows it. */
  answered?: (client: ClientName, kind: Kind, answer: Json) => boolean
  /** Why, for each cell that is not plainly carried (one line each, in the docs). */
  notes?: Partial<Record<Kind, string>>
  /** Cells whose policy depends on the client protocol too (`client>kind`), with why. */
  exceptions?: Partial<Record<`${ClientName}>${Kind}`, { policy: Policy; note: string }>>
}

/** The policy of one cell: the feature's for the upstream kind, unless the client protocol makes an exception. */
export function policyOf(feature: Feature, client: ClientName, kind: Kind): Policy {
  return feature.exceptions?.[`${client}>${kind}`]?.policy ?? feature.policy[kind]
}

export const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=='
export const pdf = Buffer.from('%PDF-1.4\n%conformance\n').toString('base64')
export const wav = Buffer.from('RIFF$\0\0\0WAVEfmt ').toString('base64')

const user = (text: string) => ({
  'openai-chat': { messages: [{ role: 'user', content: text }] },
  'openai-responses': { input: text },
  anthropic: { messages: [{ role: 'user', content: text }] },
  gemini: { contents: [{ role: 'user', parts: [{ text }] }] },
})
const withTools = {
  'openai-chat': { tools: [{ type: 'function', function: weatherTool }] },
  'openai-responses': { tools: [{ type: 'function', ...weatherTool }] },
  anthropic: { tools: [{ name: weatherTool.name, description: weatherTool.description, input_schema: weatherTool.parameters }] },
  gemini: {
    tools: [
      {
        functionDeclarations: [
          { name: weatherTool.name, description: weatherTool.description, parametersJsonSchema: weatherTool.parameters },
        ],
      },
    ],
  },
}
/** Every client's base request with its own additions. */
const everyone = (extra: Partial<Record<ClientName, Json>>, base: Record<ClientName, Json> = user('Hello')) =>
  Object.fromEntries(clientNames.map((client) => [client, { ...base[client], ...extra[client] }])) as Record<ClientName, Json>
/** Only the clients whose protocol can say the feature: the base request with their additions. */
const some = (extra: Partial<Record<ClientName, Json>>, base: Record<ClientName, Json> = user('Hello')) =>
  Object.fromEntries(Object.entries(extra).map(([client, body]) => [client, { ...base[client as ClientName], ...body }])) as Partial<
    Record<ClientName, Json>
  >
const gen = (body: Json) => body.generationConfig ?? {}
const all = (text: string) => (request: RecordedRequest) => request.rawBody.includes(text)
const partsOf = (body: Json): Json[] => (body.contents ?? []).flatMap((content: Json) => content.parts)
const openAiParts = (body: Json): Json[] =>
  body.messages.flatMap((message: Json) => (Array.isArray(message.content) ? message.content : []))
const anthropicBlocks = (body: Json): Json[] =>
  body.messages.flatMap((message: Json) => (Array.isArray(message.content) ? message.content : []))

/** Calls in a whole answer, in each client protocol. */
export function callsIn(client: ClientName, answer: Json): number {
  if (client === 'openai-chat') return answer.choices[0].message.tool_calls?.length ?? 0
  if (client === 'openai-responses') return answer.output.filter((item: Json) => item.type === 'function_call').length
  if (client === 'anthropic') return answer.content.filter((block: Json) => block.type === 'tool_use').length
  return answer.candidates[0].content.parts.filter((part: Json) => part.functionCall).length
}

/** Cached input tokens in a whole answer, in each client protocol's own field. */
function cachedIn(client: ClientName, answer: Json): number | undefined {
  if (client === 'openai-chat') return answer.usage?.prompt_tokens_details?.cached_tokens
  if (client === 'openai-responses') return answer.usage?.input_tokens_details?.cached_tokens
  if (client === 'anthropic') return answer.usage?.cache_read_input_tokens
  return answer.usageMetadata?.cachedContentTokenCount
}
/** What each fake upstream reports as cached (test/support/*-upstream.ts). */
const cachedBy: Record<Kind, number> = { openai: 3, anthropic: 4, gemini: 3 }

const replayWithImage = {
  'openai-responses': {
    input: [
      { role: 'user', content: 'Look at the map' },
      { type: 'function_call', call_id: 'call_1', name: weatherTool.name, arguments: '{"city":"Paris","unit":"celsius"}' },
      {
        type: 'function_call_output',
        call_id: 'call_1',
        output: [
          { type: 'input_text', text: 'map attached' },
          { type: 'input_image', image_url: `data:image/png;base64,${png}` },
        ],
      },
    ],
    ...withTools['openai-responses'],
  },
  anthropic: {
    messages: [
      { role: 'user', content: 'Look at the map' },
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'toolu_1', name: weatherTool.name, input: { city: 'Paris', unit: 'celsius' } }],
      },
      {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: 'toolu_1',
            content: [
              { type: 'text', text: 'map attached' },
              { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } },
            ],
          },
        ],
      },
    ],
    ...withTools.anthropic,
  },
  // A multimodal function response: the image in the functionResponse's own `parts`.
  gemini: {
    contents: [
      { role: 'user', parts: [{ text: 'Look at the map' }] },
      { role: 'model', parts: [{ functionCall: { name: weatherTool.name, args: { city: 'Paris', unit: 'celsius' } } }] },
      {
        role: 'user',
        parts: [
          {
            functionResponse: {
              name: weatherTool.name,
              response: { output: 'map attached' },
              parts: [{ inlineData: { mimeType: 'image/png', data: png } }],
            },
          },
        ],
      },
    ],
    ...withTools.gemini,
  },
}

export const features: Feature[] = [
  {
    name: 'text',
    body: everyone({}),
    policy: { openai: 'carried', anthropic: 'carried', gemini: 'carried' },
    received: { openai: all('Hello'), anthropic: all('Hello'), gemini: all('Hello') },
  },
  {
    name: 'stream',
    body: everyone({ 'openai-chat': { stream: true }, 'openai-responses': { stream: true }, anthropic: { stream: true } }),
    stream: true,
    policy: { openai: 'carried', anthropic: 'carried', gemini: 'carried' },
    received: {
      openai: (request) => request.body.stream === true,
      anthropic: (request) => request.body.stream === true,
      gemini: (request) => request.path.includes(':streamGenerateContent'),
    },
  },
  {
    name: 'tools',
    body: everyone(withTools),
    policy: { openai: 'carried', anthropic: 'carried', gemini: 'carried' },
    received: {
      openai: (request) => request.body.tools?.[0]?.function?.name === weatherTool.name,
      anthropic: (request) => request.body.tools?.[0]?.name === weatherTool.name,
      gemini: (request) => request.body.tools?.[0]?.functionDeclarations?.[0]?.name === weatherTool.name,
    },
  },
  {
    name: 'tool choice (one named tool)',
    body: everyone({
      'openai-chat': { ...withTools['openai-chat'], tool_choice: { type: 'function', function: { name: weatherTool.name } } },
      'openai-responses': { ...withTools['openai-responses'], tool_choice: { type: 'function', name: weatherTool.name } },
      anthropic: { ...withTools.anthropic, tool_choice: { type: 'tool', name: weatherTool.name } },
      gemini: { ...withTools.gemini, toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: [weatherTool.name] } } },
    }),
    policy: { openai: 'carried', anthropic: 'carried', gemini: 'carried' },
    received: {
      openai: (request) => request.body.tool_choice?.function?.name === weatherTool.name,
      anthropic: (request) => request.body.tool_choice?.type === 'tool' && request.body.tool_choice.name === weatherTool.name,
      gemini: (request) => request.body.toolConfig?.functionCallingConfig?.allowedFunctionNames?.[0] === weatherTool.name,
    },
  },
  {
    name: 'parallel tool calls off',
    body: some(
      {
        'openai-chat': { ...withTools['openai-chat'], parallel_tool_calls: false },
        'openai-responses': { ...withTools['openai-responses'], parallel_tool_calls: false },
        anthropic: { ...withTools.anthropic, tool_choice: { type: 'auto', disable_parallel_tool_use: true } },
      },
      user('Weather in Paris and Rome?'),
    ),
    policy: { openai: 'carried', anthropic: 'carried', gemini: 'emulated' },
    received: {
      openai: (request) => request.body.parallel_tool_calls === false,
      anthropic: (request) => request.body.tool_choice?.disable_parallel_tool_use === true,
      gemini: (request) => request.body.tools?.length === 1,
    },
    // The Gemini fake calls twice for Paris and Rome: the client must get one call.
    answered: (client, kind, answer) => kind !== 'gemini' || callsIn(client, answer) === 1,
    notes: {
      gemini:
        'Gemini has no switch: the request goes out as it is and the gateway keeps only the first call of the answer (whole and streamed).',
    },
  },
  {
    name: 'tool results with images',
    body: some(replayWithImage),
    policy: { openai: 'emulated', anthropic: 'carried', gemini: 'emulated' },
    received: {
      openai: (request) => {
        const messages: Json[] = request.body.messages
        const tool = messages.findIndex((message) => message.role === 'tool')
        return (
          tool >= 0 &&
          messages[tool]!.content === 'map attached' &&
          messages[tool + 1]?.role === 'user' &&
          messages[tool + 1]!.content.some((part: Json) => part.type === 'image_url' && part.image_url.url.endsWith(png))
        )
      },
      anthropic: (request) =>
        anthropicBlocks(request.body).some(
          (block) =>
            block.type === 'tool_result' &&
            Array.isArray(block.content) &&
            block.content.some((inner: Json) => inner.type === 'image' && inner.source.data === png),
        ),
      gemini: (request) => {
        const turn = request.body.contents.find((content: Json) => content.parts.some((part: Json) => part.functionResponse))
        return turn?.parts.some((part: Json) => part.inlineData?.mimeType === 'image/png' && part.inlineData.data === png)
      },
    },
    notes: {
      openai: 'a tool message holds only text: the images follow it in a user message.',
      gemini: 'the images follow the functionResponse as inlineData parts of the same turn.',
    },
  },
  {
    name: 'images',
    body: everyone(
      {},
      {
        'openai-chat': {
          messages: [
            {
              role: 'user',
              content: [
                { type: 'text', text: 'What is this?' },
                { type: 'image_url', image_url: { url: `data:image/png;base64,${png}` } },
              ],
            },
          ],
        },
        'openai-responses': {
          input: [
            {
              role: 'user',
              content: [
                { type: 'input_text', text: 'What is this?' },
                { type: 'input_image', image_url: `data:image/png;base64,${png}` },
              ],
            },
          ],
        },
        anthropic: {
          messages: [
            {
              role: 'user',
              content: [
                { type: 'text', text: 'What is this?' },
                { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } },
              ],
            },
          ],
        },
        gemini: { contents: [{ role: 'user', parts: [{ text: 'What is this?' }, { inlineData: { mimeType: 'image/png', data: png } }] }] },
      },
    ),
    policy: { openai: 'carried', anthropic: 'carried', gemini: 'carried' },
    received: {
      openai: (request) =>
        openAiParts(request.body).some((part) => part.type === 'image_url' && part.image_url.url === `data:image/png;base64,${png}`),
      anthropic: (request) => anthropicBlocks(request.body).some((block) => block.type === 'image' && block.source.data === png),
      gemini: (request) => partsOf(request.body).some((part) => part.inlineData?.mimeType === 'image/png' && part.inlineData.data === png),
    },
  },
  {
    name: 'documents (PDF)',
    body: everyone(
      {},
      {
        'openai-chat': {
          messages: [
            {
              role: 'user',
              content: [
                { type: 'text', text: 'Summarise' },
                { type: 'file', file: { file_data: `data:application/pdf;base64,${pdf}`, filename: 'a.pdf' } },
              ],
            },
          ],
        },
        'openai-responses': {
          input: [
            {
              role: 'user',
              content: [
                { type: 'input_text', text: 'Summarise' },
                { type: 'input_file', file_data: `data:application/pdf;base64,${pdf}`, filename: 'a.pdf' },
              ],
            },
          ],
        },
        anthropic: {
          messages: [
            {
              role: 'user',
              content: [
                { type: 'text', text: 'Summarise' },
                { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: pdf } },
              ],
            },
          ],
        },
        gemini: {
          contents: [{ role: 'user', parts: [{ text: 'Summarise' }, { inlineData: { mimeType: 'application/pdf', data: pdf } }] }],
        },
      },
    ),
    policy: { openai: 'carried', anthropic: 'carried', gemini: 'carried' },
    received: {
      openai: (request) =>
        openAiParts(request.body).some((part) => part.type === 'file' && part.file.file_data === `data:application/pdf;base64,${pdf}`),
      anthropic: (request) => anthropicBlocks(request.body).some((block) => block.type === 'document' && block.source.data === pdf),
      gemini: (request) =>
        partsOf(request.body).some((part) => part.inlineData?.mimeType === 'application/pdf' && part.inlineData.data === pdf),
    },
    notes: { openai: 'as a `file` part with a data: URL; a document given by URL is refused (OpenAI takes documents only inline).' },
  },
  {
    name: 'audio',
    body: some({
      'openai-chat': {
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Transcribe' },
              { type: 'input_audio', input_audio: { data: wav, format: 'wav' } },
            ],
          },
        ],
      },
      gemini: { contents: [{ role: 'user', parts: [{ text: 'Transcribe' }, { inlineData: { mimeType: 'audio/wav', data: wav } }] }] },
    }),
    policy: { openai: 'carried', anthropic: 'refused', gemini: 'carried' },
    received: {
      openai: (request) =>
        openAiParts(request.body).some(
          (part) => part.type === 'input_audio' && part.input_audio.data === wav && part.input_audio.format === 'wav',
        ),
      gemini: (request) => partsOf(request.body).some((part) => part.inlineData?.mimeType === 'audio/wav' && part.inlineData.data === wav),
    },
    notes: { anthropic: 'Anthropic takes no audio input.', openai: 'wav and mp3 only (input_audio); other audio types are refused.' },
  },
  {
    name: 'structured output (JSON schema)',
    body: everyone({
      'openai-chat': { response_format: { type: 'json_schema', json_schema: { name: 'weather', schema: structuredSchema, strict: true } } },
      'openai-responses': { text: { format: { type: 'json_schema', name: 'weather', schema: structuredSchema, strict: true } } },
      anthropic: { output_config: { format: { type: 'json_schema', schema: structuredSchema } } },
      gemini: { generationConfig: { responseMimeType: 'application/json', responseJsonSchema: structuredSchema } },
    }),
    policy: { openai: 'carried', anthropic: 'carried', gemini: 'carried' },
    received: {
      openai: (request) => Bun.deepEquals(request.body.response_format?.json_schema?.schema, structuredSchema),
      anthropic: (request) => Bun.deepEquals(request.body.output_config?.format?.schema, structuredSchema),
      gemini: (request) => Bun.deepEquals(gen(request.body).responseJsonSchema, structuredSchema),
    },
  },
  {
    name: 'JSON mode (no schema)',
    body: some({
      'openai-chat': { response_format: { type: 'json_object' } },
      'openai-responses': { text: { format: { type: 'json_object' } } },
      gemini: { generationConfig: { responseMimeType: 'application/json' } },
    }),
    policy: { openai: 'carried', anthropic: 'emulated', gemini: 'carried' },
    received: {
      openai: (request) => request.body.response_format?.type === 'json_object',
      anthropic: (request) => request.body.tool_choice?.name === 'tollgate_json_answer',
      gemini: (request) => gen(request.body).responseMimeType === 'application/json',
    },
    answered: (client, kind, answer) => kind !== 'anthropic' || isJson(textIn(client, answer)),
    notes: {
      anthropic:
        "one forced tool (`tollgate_json_answer`) whose input is any object; its call comes back as the answer's text, the stop reason as a normal end. Refused (400) with tools or thinking in the same request: use a JSON schema.",
    },
  },
  {
    name: 'logprobs',
    body: some({
      'openai-chat': { logprobs: true, top_logprobs: 2 },
      'openai-responses': { top_logprobs: 2 },
      gemini: { generationConfig: { responseLogprobs: true, logprobs: 2 } },
    }),
    policy: { openai: 'carried', anthropic: 'refused', gemini: 'carried' },
    received: {
      openai: (request) => request.body.logprobs === true && request.body.top_logprobs === 2,
      gemini: (request) => gen(request.body).responseLogprobs === true && gen(request.body).logprobs === 2,
    },
    notes: { anthropic: 'Anthropic gives no token log probabilities.' },
  },
  {
    name: 'penalties (presence, frequency)',
    body: some({
      'openai-chat': { presence_penalty: 0.5, frequency_penalty: 0.25 },
      gemini: { generationConfig: { presencePenalty: 0.5, frequencyPenalty: 0.25 } },
    }),
    policy: { openai: 'carried', anthropic: 'refused', gemini: 'carried' },
    received: {
      openai: (request) => request.body.presence_penalty === 0.5 && request.body.frequency_penalty === 0.25,
      gemini: (request) => gen(request.body).presencePenalty === 0.5 && gen(request.body).frequencyPenalty === 0.25,
    },
    notes: { anthropic: 'Anthropic has no penalties; a penalty of 0 is accepted (it asks for nothing).' },
  },
  {
    name: 'stop sequences',
    body: some({
      'openai-chat': { stop: ['END'] },
      anthropic: { stop_sequences: ['END'] },
      gemini: { generationConfig: { stopSequences: ['END'] } },
    }),
    policy: { openai: 'carried', anthropic: 'carried', gemini: 'carried' },
    received: {
      openai: (request) => Bun.deepEquals(request.body.stop, ['END']),
      anthropic: (request) => Bun.deepEquals(request.body.stop_sequences, ['END']),
      gemini: (request) => Bun.deepEquals(gen(request.body).stopSequences, ['END']),
    },
  },
  {
    name: 'seed',
    body: some({ 'openai-chat': { seed: 7 }, gemini: { generationConfig: { seed: 7 } } }),
    policy: { openai: 'carried', anthropic: 'ignored', gemini: 'carried' },
    received: { openai: (request) => request.body.seed === 7, gemini: (request) => gen(request.body).seed === 7 },
    notes: {
      anthropic:
        'Anthropic has no seed. A seed only makes sampling best-effort repeatable anywhere; refusing it would break clients that always send one.',
    },
  },
  {
    name: 'end-user id',
    body: some({
      'openai-chat': { user: 'user-1' },
      'openai-responses': { safety_identifier: 'user-1' },
      anthropic: { metadata: { user_id: 'user-1' } },
    }),
    policy: { openai: 'carried', anthropic: 'carried', gemini: 'ignored' },
    received: { openai: (request) => request.body.user === 'user-1', anthropic: (request) => request.body.metadata?.user_id === 'user-1' },
    notes: {
      gemini:
        'Gemini has no end-user id; it is an abuse-tracing hint that changes no answer. The gateway records the key that made each request.',
    },
  },
  {
    name: 'safety settings',
    body: some({ gemini: { safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_ONLY_HIGH' }] } }),
    policy: { openai: 'ignored', anthropic: 'ignored', gemini: 'carried' },
    received: { gemini: (request) => request.body.safetySettings?.[0]?.threshold === 'BLOCK_ONLY_HIGH' },
    notes: {
      openai: 'OpenAI has no per-request safety thresholds; its own moderation applies.',
      anthropic: 'Anthropic has no per-request safety thresholds; its own moderation applies.',
    },
  },
  {
    name: 'reasoning / thinking',
    body: everyone({
      'openai-chat': { reasoning_effort: 'high', max_completion_tokens: 4096 },
      'openai-responses': { reasoning: { effort: 'high' }, max_output_tokens: 4096 },
      anthropic: { thinking: { type: 'enabled', budget_tokens: 2048 }, max_tokens: 4096 },
      gemini: { generationConfig: { thinkingConfig: { thinkingBudget: 2048, includeThoughts: true }, maxOutputTokens: 4096 } },
    }),
    policy: { openai: 'carried', anthropic: 'carried', gemini: 'carried' },
    received: {
      openai: (request) => typeof request.body.reasoning_effort === 'string',
      anthropic: (request) => request.body.thinking?.type === 'enabled' && request.body.thinking.budget_tokens >= 1024,
      gemini: (request) => typeof gen(request.body).thinkingConfig?.thinkingBudget === 'number',
    },
    exceptions: {
      'anthropic>openai': {
        policy: 'ignored',
        note: 'a thinking budget has no OpenAI counterpart (OpenAI takes only an effort), and a guessed reasoning_effort makes OpenAI models that do not reason refuse the request: Claude Code sends thinking on every request.',
      },
      'gemini>openai': {
        policy: 'ignored',
        note: 'a thinking budget has no OpenAI counterpart, for the same reason; a thinkingLevel is carried as reasoning_effort.',
      },
    },
    notes: {
      anthropic:
        "an effort becomes a thinking budget (low 2048, medium 8192, high 24576 tokens), kept below max_tokens; a budget under 1024 tokens (Anthropic's minimum) means no thinking.",
      gemini: 'an effort becomes a thinking budget (minimal 512 … high 24576 tokens).',
    },
  },
  {
    name: 'cache control',
    body: some({ anthropic: { system: [{ type: 'text', text: 'A long, stable prompt', cache_control: { type: 'ephemeral' } }] } }),
    policy: { openai: 'ignored', anthropic: 'ignored', gemini: 'ignored' },
    received: {},
    notes: {
      openai: 'OpenAI caches long prompt prefixes by itself; cached tokens are reported and billed as such.',
      anthropic: 'forwarded as it is when the route allows passthrough; a translated request (passthrough off) loses its breakpoints.',
      gemini: 'Gemini caches implicitly; cached tokens are reported and billed as such.',
    },
  },
  {
    name: 'usage incl. cached tokens',
    body: everyone({}),
    policy: { openai: 'carried', anthropic: 'carried', gemini: 'carried' },
    received: { openai: all('Hello'), anthropic: all('Hello'), gemini: all('Hello') },
    answered: (client, kind, answer) => cachedIn(client, answer) === cachedBy[kind],
  },
]

function textIn(client: ClientName, answer: Json): string {
  if (client === 'openai-chat') return answer.choices[0].message.content ?? ''
  if (client === 'openai-responses')
    return answer.output
      .filter((item: Json) => item.type === 'message')
      .map((item: Json) => item.content[0].text)
      .join('')
  if (client === 'anthropic')
    return answer.content
      .filter((block: Json) => block.type === 'text')
      .map((block: Json) => block.text)
      .join('')
  return answer.candidates[0].content.parts.map((part: Json) => part.text ?? '').join('')
}

function isJson(text: string): boolean {
  try {
    return typeof JSON.parse(text) === 'object'
  } catch {
    return false
  }
}
