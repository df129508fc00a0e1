import { createPng, maxPngSide } from '../../../core/png.ts'
import { refuseField } from '../../../providers/refuse-field.ts'
import type { ImagesAnswer, ImagesRequest } from '../core/ir.ts'
import type { ImagesUpstream } from '../core/upstream.ts'

/** What the mock makes when the size is left to it. */
const defaultSize = '1024x1024'

/** The mock's token report for one image: a token per 4096 pixels (256 for 1024 × 1024), so per-token bills are exact. */
export function mockImageTokens(size: string | undefined): number {
  const [width, height] = sidesOf(size)
  return Math.ceil((width * height) / 4096)
}

function sidesOf(size: string | undefined): [number, number] {
  const [width, height] = (size === undefined || size === 'auto' ? defaultSize : size).split('x').map(Number)
  return [width!, height!]
}

/**
 * The built-in provider's images: a solid-colour PNG of the asked size per image (core/png.ts), its colour from the
 * prompt and the image's place (so a test can tell them apart), edits alike. It reports usage like gpt-image models
 * (a token per four prompt characters in, `mockImageTokens` out), and the size and quality it was asked for.
 */
export function createMockImagesUpstream(): ImagesUpstream {
  return {
    async create(request: ImagesRequest): Promise<ImagesAnswer> {
      if (request.outputFormat !== undefined && request.outputFormat !== 'png')
        throw refuseField('output_format', 'mock', 'makes PNG images only')
      const [width, height] = sidesOf(request.size)
      if (width > maxPngSide || height > maxPngSide)
        throw refuseField('size', 'mock', `makes images of at most ${maxPngSide} pixels a side`)
      const images = Array.from({ length: request.n }, (_, index) => {
        const b64 = Buffer.from(createPng(width, height, `${request.prompt}#${index}`)).toString('base64')
        return request.responseFormat === 'url' ? { url: `data:image/png;base64,${b64}` } : { b64 }
      })
      const outputTokens = request.n * mockImageTokens(request.size)
      return {
        created: Math.floor(Date.now() / 1000),
        images,
        size: `${width}x${height}`,
        quality: request.quality === 'auto' ? undefined : request.quality,
        outputFormat: 'png',
        usage: {
          inputTokens: Math.ceil(request.prompt.length / 4),
          cachedInputTokens: 0,
          cacheWriteTokens: 0,
          outputTokens,
          reasoningTokens: 0,
        },
      }
    },
  }
}
