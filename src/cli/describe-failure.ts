import type { Config } from '../config/types.ts'
import { maskDatabaseUrl } from '../core/database-url.ts'

/**
 * A start-up failure the operator can fix, said in one line that names the setting to change, instead of a stack
 * with kilobytes of minified source. Undefined when the error is not one of them (the caller prints it plainly).
 */
export function describeFailure(error: unknown, config: Config | undefined): string | undefined {
  const { code, syscall } = error as { code?: unknown; syscall?: unknown }
  const message = (error as Error)?.message ?? String(error)
  if (config && (code === 'EADDRINUSE' || syscall === 'listen')) {
    const { host, port } = config.listen
    const where = `${host.includes(':') ? `[${host}]` : host}:${port}`
    const file = config.source.startsWith('(') ? 'the config file' : config.source
    if (code === 'EADDRINUSE') {
      return `cannot listen on ${where}: another process is using that port (change listen.port in ${file}, or set PORT)`
    }
    if (code === 'EACCES')
      return `cannot listen on ${where}: ports below 1024 need privileges (choose listen.port 1024 or above, or set PORT)`
    return (
      `cannot listen on ${where}: ${message} (listen.host must be an address of this machine, e.g. 127.0.0.1, or ` +
      `0.0.0.0 for every interface; change it in ${file}, or set HOST)`
    )
  }
  if (typeof code === 'string' && code.startsWith('ERR_POSTGRES_')) {
    const where = config ? ` ${maskDatabaseUrl(config.database)}` : ''
    return `cannot use the PostgreSQL database${where}: ${message} (${code}); is it running and reachable, and does the database exist?`
  }
  return undefined
}
