import { verifyWebhook } from '../../src/core/webhook-signature.ts'

export interface ReceivedDelivery {
  body: Record<string, any>
  raw: string
  headers: Headers
  /** Whether Tollgate-Signature verified against the secret the receiver was given (by `expectSecret`). */
  valid: boolean | undefined
  at: number
}

/** A webhook receiver on loopback: records each POST, answers `status` after `delayMs`, and verifies signatures. */
export interface WebhookReceiver {
  url: string
  port: number
  received: ReceivedDelivery[]
  /** Deliveries whose answer is still being held back (a slow receiver). */
  waiting: number
  /** The secret each signature is checked against (set once the webhook is made). */
  expectSecret(secret: string): void
  setStatus(status: number): void
  stop(): Promise<void>
}

export function startWebhookReceiver(options: { port?: number; status?: number; delayMs?: number } = {}): WebhookReceiver {
  let secret: string | undefined
  let status = options.status ?? 204
  const receiver: WebhookReceiver = {
    url: '',
    port: 0,
    received: [],
    waiting: 0,
    expectSecret: (value) => (secret = value),
    setStatus: (value) => (status = value),
    stop: async () => server.stop(true),
  }
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: options.port ?? 0,
    idleTimeout: 30,
    async fetch(request) {
      const raw = await request.text()
      const valid =
        secret === undefined
          ? undefined
          : verifyWebhook(request.headers.get('tollgate-signature'), raw, secret, Math.floor(Date.now() / 1000)).valid
      receiver.received.push({ body: JSON.parse(raw), raw, headers: request.headers, valid, at: Date.now() })
      if (options.delayMs) {
        receiver.waiting++
        await Bun.sleep(options.delayMs)
        receiver.waiting--
      }
      return new Response(null, { status })
    },
  })
  receiver.port = server.port!
  receiver.url = `http://127.0.0.1:${server.port}/hooks/tollgate`
  return receiver
}
