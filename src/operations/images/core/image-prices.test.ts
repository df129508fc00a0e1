import { expect, test } from 'bun:test'
import { imagesCost, pricePerImage } from './bill.ts'
import { dearestImagePrice } from './image-prices.ts'

const prices = { '1024x1024/low': 11, '1024x1024/high': 167, '1536x1024/high': 250, '256x256': 16 }
const price = { input: 0, output: 0, cachedInput: 0, cacheWrite: 0, images: prices }

test('the dearest price a request may be answered at: what it leaves to the model matches every key', () => {
  expect(dearestImagePrice(prices, 'm', '1024x1024', 'low')).toBe(11)
  expect(dearestImagePrice(prices, 'm', '1024x1024', undefined)).toBe(167)
  expect(dearestImagePrice(prices, 'm', 'auto', 'high')).toBe(250)
  expect(dearestImagePrice(prices, 'm', undefined, undefined)).toBe(250)
  expect(dearestImagePrice(prices, 'm', '256x256', 'hd')).toBe(16) // a size alone: any quality
})

test('a size or quality without a price is a 400 naming the one at fault', () => {
  expect(() => dearestImagePrice(prices, 'm', '512x512', undefined)).toThrow(expect.objectContaining({ status: 400, param: 'size' }))
  expect(() => dearestImagePrice(prices, 'm', '1536x1024', 'low')).toThrow(expect.objectContaining({ status: 400, param: 'quality' }))
})

test('an image is billed at the price of what was made, else the dearest of what was asked', () => {
  expect(pricePerImage(prices, '1024x1024/low')).toBe(11)
  expect(pricePerImage(prices, '256x256/standard')).toBe(16)
  expect(pricePerImage(prices, '1024x1024/auto')).toBe(167)
  expect(pricePerImage(prices, 'auto/auto')).toBe(250)
  expect(pricePerImage(prices, '999x999/odd')).toBe(250) // never priced (refused before): the dearest, not a failure
  expect(
    imagesCost(
      {
        inputTokens: 9,
        cachedInputTokens: 0,
        cacheWriteTokens: 0,
        outputTokens: 9,
        reasoningTokens: 0,
        units: 3,
        variant: '1024x1024/high',
      },
      price,
    ),
  ).toBe(501)
})
