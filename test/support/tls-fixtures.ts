import { readFileSync } from 'node:fs'
import { join } from 'node:path'

/** The test certificates (test/fixtures/tls/README.md): `loopback` for 127.0.0.1 and localhost, `elsewhere` for another host. */
export type TlsFixture = 'loopback' | 'elsewhere'

/** Where the fixtures are: `NODE_EXTRA_CA_CERTS` takes a path. */
export const tlsFixtures = join(import.meta.dir, '../fixtures/tls')

/** One fixture's certificate (PEM), for a client to trust. */
export function fixtureCertificate(name: TlsFixture): string {
  return readFileSync(join(tlsFixtures, `${name}-cert.pem`), 'utf8')
}

/** A loopback HTTPS server with a fixture's certificate, answering with `fetch` (on `port`, or any free one). */
export function startHttpsServer(name: TlsFixture, fetch: (request: Request) => Response | Promise<Response>, port = 0) {
  const key = readFileSync(join(tlsFixtures, `${name}-key.pem`), 'utf8')
  return Bun.serve({ hostname: '127.0.0.1', port, tls: { cert: fixtureCertificate(name), key }, fetch })
}
