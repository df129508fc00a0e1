import { createPng } from '../../../src/core/png.ts'
import type { Json, Policy } from './features.ts'

/**
 * Issue 29's matrices, beside chat's and embeddings': each images and rerank request feature, what the gateway does
 * with it toward each upstream kind that serves the operation (an OpenAI-compatible server, the built-in mock), and
 * the evidence — what the recording upstream received (`sent`, its last request) or, for the mock, what the client
 * got back (`answer`).
 */
export type MediaKind = 'openai' | 'mock'
export const mediaKinds: MediaKind[] = ['openai', 'mock']

export interface MediaFeature {
  name: string
  /** JSON fields, or for an edit the form's fields and files (`edit: true`). */
  body: Json
  edit?: boolean
  policy: Record<MediaKind, Policy>
  /** The evidence: the upstream's last request as the loopback recorded it (openai), the client's answer (both). */
  check?: Partial<Record<MediaKind, (sent: Json, answer: Json) => boolean>>
  notes?: Partial<Record<MediaKind, string>>
}

const pngWidth = (b64: string) => Buffer.from(b64, 'base64').readUInt32BE(16)

export const imageFeatures: MediaFeature[] = [
  {
    name: 'prompt',
    body: { prompt: 'a red fox' },
    policy: { openai: 'carried', mock: 'carried' },
    check: { openai: (sent) => sent.fields.prompt === 'a red fox', mock: (_, answer) => answer.data.length === 1 },
  },
  {
    name: 'n',
    body: { prompt: 'x', n: 2 },
    policy: { openai: 'carried', mock: 'carried' },
    check: { openai: (sent, answer) => sent.fields.n === 2 && answer.data.length === 2, mock: (_, answer) => answer.data.length === 2 },
  },
  {
    name: 'size',
    body: { prompt: 'x', size: '256x256' },
    policy: { openai: 'carried', mock: 'carried' },
    check: { openai: (sent) => sent.fields.size === '256x256', mock: (_, answer) => pngWidth(answer.data[0].b64_json) === 256 },
  },
  {
    name: 'quality',
    body: { prompt: 'x', quality: 'high', size: '256x256' },
    policy: { openai: 'carried', mock: 'carried' },
    check: { openai: (sent) => sent.fields.quality === 'high', mock: (_, answer) => answer.quality === 'high' },
  },
  {
    name: 'response_format b64_json',
    body: { prompt: 'x', response_format: 'b64_json' },
    policy: { openai: 'carried', mock: 'carried' },
    check: {
      openai: (sent, answer) => sent.fields.response_format === 'b64_json' && typeof answer.data[0].b64_json === 'string',
      mock: (_, answer) => typeof answer.data[0].b64_json === 'string',
    },
  },
  {
    name: 'response_format url',
    body: { prompt: 'x', response_format: 'url' },
    policy: { openai: 'carried', mock: 'emulated' },
    check: {
      openai: (sent, answer) => sent.fields.response_format === 'url' && answer.data[0].url.startsWith('data:image/png;base64,'),
      mock: (_, answer) => answer.data[0].url.startsWith('data:image/png;base64,'),
    },
    notes: {
      openai:
        'An upstream that sends URLs (dall-e) has them passed on; one that sends bytes anyway (gpt-image) has them passed on as a `data:` URL.',
      mock: 'The gateway keeps no files: the bytes come back as a `data:` URL.',
    },
  },
  {
    name: 'output_format',
    body: { prompt: 'x', output_format: 'webp' },
    policy: { openai: 'carried', mock: 'refused' },
    check: { openai: (sent, answer) => sent.fields.output_format === 'webp' && answer.output_format === 'webp' },
    notes: { mock: 'The mock makes PNG images only.' },
  },
  {
    name: 'background, style, moderation, output_compression, user',
    body: { prompt: 'x', background: 'transparent', style: 'vivid', moderation: 'low', output_compression: 80, user: 'end-user-7' },
    policy: { openai: 'carried', mock: 'ignored' },
    check: {
      openai: (sent) =>
        sent.fields.background === 'transparent' &&
        sent.fields.style === 'vivid' &&
        sent.fields.moderation === 'low' &&
        sent.fields.output_compression === 80 &&
        sent.fields.user === 'end-user-7',
    },
    notes: { mock: 'The mock paints a solid colour; these change nothing there.' },
  },
  {
    name: 'edit: image, mask and fields as a form',
    body: { prompt: 'add a hat', size: '256x256', quality: 'low', image: createPng(8, 8, 'in'), mask: createPng(8, 8, 'mask') },
    edit: true,
    policy: { openai: 'carried', mock: 'ignored' },
    check: {
      openai: (sent) =>
        sent.path === '/v1/images/edits' &&
        sent.fields.prompt === 'add a hat' &&
        sent.fields.quality === 'low' &&
        sent.files.map((file: Json) => `${file.field}:${file.type}`).join() === 'image:image/png,mask:image/png',
    },
    notes: { mock: 'The mock paints from the prompt: the image and mask are read and checked, then change nothing.' },
  },
  {
    name: 'usage (tokens)',
    body: { prompt: 'four words long prompt' },
    policy: { openai: 'carried', mock: 'carried' },
    check: {
      openai: (_, answer) => answer.usage.input_tokens === 'four words long prompt'.length,
      mock: (_, answer) => answer.usage.output_tokens > 0,
    },
  },
]

const documents = ['Berlin is the capital of Germany.', 'Paris is the capital of France.']

export const rerankFeatures: MediaFeature[] = [
  {
    name: 'query and documents',
    body: { query: 'capital of France', documents },
    policy: { openai: 'carried', mock: 'carried' },
    check: {
      openai: (sent) => sent.body.query === 'capital of France' && sent.body.documents.length === 2,
      mock: (_, answer) => answer.results[0].index === 1,
    },
  },
  {
    name: 'documents as objects with text',
    body: { query: 'capital of France', documents: documents.map((text) => ({ text })) },
    policy: { openai: 'carried', mock: 'carried' },
    check: { openai: (sent) => sent.body.documents[1] === documents[1], mock: (_, answer) => answer.results[0].index === 1 },
    notes: { openai: 'Sent as strings, the form every server of this shape takes.' },
  },
  {
    name: 'top_n',
    body: { query: 'capital of France', documents, top_n: 1 },
    policy: { openai: 'carried', mock: 'carried' },
    check: {
      openai: (sent, answer) => sent.body.top_n === 1 && answer.results.length === 1,
      mock: (_, answer) => answer.results.length === 1,
    },
  },
  {
    name: 'top_k (Voyage)',
    body: { query: 'capital of France', documents, top_k: 1 },
    policy: { openai: 'emulated', mock: 'emulated' },
    check: { openai: (sent) => sent.body.top_n === 1, mock: (_, answer) => answer.results.length === 1 },
    notes: { openai: 'Sent as top_n.', mock: 'Read as top_n.' },
  },
  {
    name: 'return_documents: false',
    body: { query: 'capital of France', documents, return_documents: false },
    policy: { openai: 'emulated', mock: 'emulated' },
    check: {
      openai: (sent, answer) => !('return_documents' in sent.body) && !('document' in answer.results[0]),
      mock: (_, answer) => !('document' in answer.results[0]),
    },
    notes: {
      openai: 'Documents are never asked back (the gateway has their text): it writes them into the answer, or not.',
      mock: 'As toward OpenAI-compatible servers.',
    },
  },
  {
    name: 'usage (tokens, search units)',
    body: { query: 'capital of France', documents },
    policy: { openai: 'carried', mock: 'carried' },
    check: {
      openai: (_, answer) => answer.usage.total_tokens > 0 && answer.meta.billed_units.search_units === 1,
      mock: (_, answer) => answer.usage.total_tokens > 0 && answer.meta.billed_units.search_units === 1,
    },
  },
]

/** A matrix section of docs/conformance.md: the cells this run found, then the notes. */
export function renderMediaSection(
  title: string,
  intro: string[],
  client: string,
  features: MediaFeature[],
  cells: Map<string, Policy>,
): string[] {
  const lines = [
    `## ${title}`,
    '',
    ...intro,
    '',
    `| feature | ${mediaKinds.map((kind) => `${client} → ${kind}`).join(' | ')} |`,
    `|---|${mediaKinds.map(() => '---').join('|')}|`,
  ]
  for (const feature of features)
    lines.push(`| ${feature.name} | ${mediaKinds.map((kind) => cells.get(`${feature.name}|${kind}`) ?? '—').join(' | ')} |`)
  lines.push('')
  for (const feature of features) {
    for (const kind of mediaKinds) {
      const note = feature.notes?.[kind]
      if (note) lines.push(`- **${feature.name} → ${kind}** (${feature.policy[kind]}): ${note}`)
    }
  }
  lines.push('')
  return lines
}
