import type { Vector } from './ir.ts'

/**
 * Vectors in OpenAI's `encoding_format: base64`: the float32s' little-endian bytes, base64-encoded (the official SDKs
 * decode it with a Float32Array, and ask for it by default: a quarter of the JSON numbers' size).
 */
export function encodeBase64Vector(vector: Vector): string {
  const floats = vector instanceof Float32Array ? vector : Float32Array.from(vector)
  return Buffer.from(floats.buffer, floats.byteOffset, floats.byteLength).toString('base64')
}

/** A base64 vector as float32s; undefined when its bytes are not a whole number of floats. */
export function decodeBase64Vector(text: string): Float32Array | undefined {
  const bytes = Buffer.from(text, 'base64')
  if (bytes.byteLength % 4 !== 0) return undefined
  // A copy, aligned: a Buffer's bytes may start at any offset of a shared pool.
  return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength))
}

/** A vector as JSON numbers (a float32's value written in full, as the SDKs' own base64 decoding gives it). */
export function floatsOf(vector: Vector): number[] {
  return Array.isArray(vector) ? vector : Array.from(vector)
}
