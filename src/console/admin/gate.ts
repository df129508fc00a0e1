import { adminTokenActor } from '../../domain/actor.ts'
import { clientAddress } from '../../edge/client-address.ts'
import type { Services } from '../../edge/services.ts'
import { requireAdminToken } from '../../edge/admin-auth.ts'
import { gate } from '../server/access.ts'
import { jsonHeaders } from '../server/respond.ts'

/**
 * The admin API's gate, used by each group of its routes: an admin token (`Authorization: Bearer tga-…`) gives the
 * `token` and its `actor` (a `read` token acts as a viewer of every account, a `full` one as an admin), and each
 * route's permission is checked against that role by `gate` (access.ts), before the body is read.
 * No CSRF check: a browser never attaches a bearer token by itself.
 */
export function withAdminToken(services: Services) {
  return gate(services, jsonHeaders, async (request) => {
    const token = await requireAdminToken(services, request, 'read')
    return { token, actor: adminTokenActor(token, clientAddress(request, services.server, services.config.trustedProxies)) }
  })
}

/** Every admin API route's documentation: its tag and the bearer scheme (docs.ts defines `adminToken`). */
export const adminDetail = (summary: string, description?: string) => ({
  tags: ['Admin API'],
  summary,
  description,
  security: [{ adminToken: [] }],
})
