import type { OperationRequest } from '../../../core/operation.ts'
import type { Usage } from '../../../core/usage.ts'

/**
 * Images' internal format (IR): what OpenAI's `/v1/images/generations` and `/v1/images/edits` decode into and every
 * upstream kind encodes from. No vendor JSON crosses this line.
 */

/** An uploaded file of an edit, kept aside on disk while the request runs (it may be sent more than once). */
export interface ImageFile {
  /** The form field it came in (`image`, `image[]`, `mask`). */
  field: string
  filename: string
  contentType: string
  /** Where its bytes are (a spooled upload): read from disk for each attempt, never held in memory. */
  path: string
  bytes: number
}

export interface ImagesRequest extends OperationRequest {
  readonly model: string
  /** Images are never streamed here. */
  stream: false
  prompt: string
  /** How many images (OpenAI's `n`, default 1). */
  n: number
  /** `1024x1024`, `1536x1024`…, or `auto`; absent when the client left it to the model. */
  size?: string
  /** `low`, `medium`, `high`, `standard`, `hd`, `auto`; absent when the client left it to the model. */
  quality?: string
  /** How the client wants each image: a URL or the bytes in base64 (absent: the model's default, as OpenAI). */
  responseFormat?: 'url' | 'b64_json'
  /** `png`, `jpeg` or `webp` (gpt-image models). */
  outputFormat?: string
  /** Other settings the upstream may take as they are (`background`, `style`, `moderation`, `output_compression`, `user`). */
  options: Record<string, string | number>
  /** An edit's input images and mask; absent for a generation. */
  edit?: { images: ImageFile[]; mask?: ImageFile }
}

/** One image of an answer: its bytes in base64, or a URL where the upstream keeps it. */
export interface Image {
  b64?: string
  url?: string
  revisedPrompt?: string
}

export interface ImagesAnswer {
  /** Unix seconds. */
  created: number
  images: Image[]
  /** What the upstream says it made, when it says (gpt-image models): the price of that size and quality is billed. */
  size?: string
  quality?: string
  outputFormat?: string
  background?: string
  /** The tokens the upstream reports (gpt-image models), with `units`: the images made. */
  usage?: Usage
}
