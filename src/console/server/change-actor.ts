import type { ChangeActor } from '../../domain/change-actor.ts'
import type { AdminTokenRecord, UserRecord } from '../../domain/records.ts'
import { clientAddress } from '../../edge/client-address.ts'
import type { Services } from '../../edge/services.ts'

/** The client's address as the sign-in throttle sees it: the proxy's report only from a trusted proxy. */
const addressOf = (services: Services, request: Request) => clientAddress(request, services.server, services.config.trustedProxies)

/** A change made by a signed-in console login. */
export function changeByLogin(services: Services, user: UserRecord, request: Request): ChangeActor {
  return { kind: 'user', label: user.name, userId: user.id, adminTokenId: null, address: addressOf(services, request) }
}

/** A change made through the admin API; named as its ledger entries name it (`admin-token:NAME`). */
export function changeByAdminToken(services: Services, token: AdminTokenRecord, request: Request): ChangeActor {
  return {
    kind: 'admin-token', label: `admin-token:${token.name}`, userId: null, adminTokenId: token.id, address: addressOf(services, request),
  }
}
