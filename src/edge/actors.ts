import { type Actor, keyActor } from '../domain/actor.ts'
import type { KeyRecord } from '../domain/records.ts'
import { clientAddress } from './client-address.ts'
import type { Services } from './services.ts'

/** An API key's holder making a change through a vendor API (cancelling its batch), from the request's client address. */
export function keyHolder(services: Services, key: Pick<KeyRecord, 'id' | 'accountId'>, request: Request): Actor {
  return keyActor(key, clientAddress(request, services.server, services.config.trustedProxies))
}
