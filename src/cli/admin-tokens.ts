import { createAdminToken, listAdminTokens, readAdminScope, revokeAdminToken } from '../domain/admin-tokens.ts'
import { adminTokenJson } from '../domain/presenters.ts'
import type { Store } from '../domain/repositories.ts'
import { changeByCli } from './actor.ts'
import { flagString, type ParsedArgs, UsageError } from './args.ts'
import { formatTime, printResult, table } from './output.ts'

/** `tollgate admin-token create|list|revoke`: the bearer tokens of the admin API (/admin/api). */
export async function runAdminTokenCommand(store: Store, args: ParsedArgs, json: boolean): Promise<void> {
  const [, action, operand] = args.positional
  switch (action) {
    case 'create': {
      const scopeText = flagString(args, 'scope')
      if (scopeText === undefined)
        throw new UsageError(
          '--scope is required: read (look only) or full (may also change accounts and keys)\nusage: tollgate admin-token create NAME --scope read|full',
        )
      const { record, secret } = await createAdminToken(store.adminTokens, operand!, readAdminScope(scopeText), changeByCli())
      return printResult(
        json,
        { ...adminTokenJson(record), token: secret },
        () =>
          `created ${record.scope} admin token ${record.id} (${record.name})\n\n  ${secret}\n\nThis secret is shown only now; store it somewhere safe.`,
      )
    }
    case 'list': {
      const tokens = await listAdminTokens(store.adminTokens)
      return printResult(
        json,
        tokens.map(adminTokenJson),
        () =>
          table([
            ['ID', 'NAME', 'SCOPE', 'PREFIX', 'STATUS', 'CREATED', 'LAST USED'],
            ...tokens.map((token) => [
              token.id,
              token.name,
              token.scope,
              `${token.prefix}…`,
              token.revokedAt === null ? 'active' : 'revoked',
              formatTime(token.createdAt),
              formatTime(token.lastUsedAt),
            ]),
          ]) || 'no admin tokens',
      )
    }
    case 'revoke': {
      const { token, changed } = await revokeAdminToken(store.adminTokens, operand!, changeByCli())
      return printResult(json, adminTokenJson(token), () =>
        changed ? `revoked admin token ${token.id}` : `admin token ${token.id} was already revoked`,
      )
    }
    default:
      throw new UsageError('usage: tollgate admin-token create|list|revoke …')
  }
}
