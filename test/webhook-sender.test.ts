import { afterAll, beforeAll, expect, test } from 'bun:test'
import { lookup } from 'node:dns/promises'
import { hostname } from 'node:os'
import { createWebhookSender } from '../src/edge/webhook-sender.ts'
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.ts'

/**
 * The HTTP half of a delivery against real sockets: a host name is judged by what it resolves to at the attempt,
 * the connection goes to the judged address with the name kept in Host, and a redirect is never followed.
 */
let target: WebhookReceiver
let redirector: ReturnType<typeof Bun.serve>

beforeAll(() => {
  target = startWebhookReceiver()
  redirector = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch: () => new Response(null, { status: 302, headers: { location: target.url } }),
  })
})
afterAll(async () => {
  await target.stop()
  redirector.stop(true)
})

const post = (allowPrivate: boolean, url: string) =>
  createWebhookSender(() => allowPrivate)({ url, body: '{"id":"whd_x"}', headers: { 'content-type': 'application/json' }, timeoutMs: 2000 })

test('a name that resolves to a private address is refused at the attempt unless the operator allows it', async () => {
  const name = hostname()
  const [resolved] = await lookup(name, { all: true })
  const url = `http://${name}:${target.port}/hooks/tollgate`
  await expect(post(false, url)).rejects.toThrow(`refused: ${name} resolves to ${resolved!.address}`)
  expect(target.received).toHaveLength(0)
  // Allowed, it connects to the address it checked, and the receiver still sees the name it was given.
  expect(await post(true, url)).toEqual({ status: 204, retryAfterMs: undefined })
  expect(target.received[0]!.headers.get('host')).toBe(`${name}:${target.port}`)
})

test('a redirect is an answer, not a delivery: it is never followed', async () => {
  const before = target.received.length
  expect((await post(true, `http://127.0.0.1:${redirector.port}/hook`)).status).toBe(302)
  expect(target.received).toHaveLength(before)
})

test('a URL refused when made is refused at each attempt too (the operator may have turned private receivers off)', async () => {
  await expect(post(false, target.url)).rejects.toThrow('refused: 127.0.0.1 is a loopback address')
})
