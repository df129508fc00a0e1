import type { Config } from '../config/types.ts'
import { flagString, type ParsedArgs, UsageError } from './args.ts'
import { printResult, table } from './output.ts'

interface StatusBody {
  in_flight: number
  shared_state?: { mode: string; redis_outages: number }
  database?: { up: boolean; outages: number; spooled_bills: number }
  routes: {
    route: string
    state: string
    window_requests: number
    window_failures: number
    trips: number
    open_until: string | null
    last_failure: string | null
  }[]
}

/**
 * `tollgate status`: route health lives in the running server's memory, so ask it (`--url`, else the config's listen
 * address). With `admin.protect_metrics` the server wants an admin token: TOLLGATE_ADMIN_TOKEN is sent when set.
 */
export async function runStatusCommand(config: Config, args: ParsedArgs, json: boolean): Promise<void> {
  const host = config.listen.host === '0.0.0.0' || config.listen.host === '::' ? '127.0.0.1' : config.listen.host
  const url = (flagString(args, 'url') ?? `http://${host.includes(':') ? `[${host}]` : host}:${config.listen.port}`).replace(/\/+$/, '')
  const token = process.env.TOLLGATE_ADMIN_TOKEN
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {}
  let response: Response
  let status: StatusBody
  try {
    response = await fetch(`${url}/status`, { signal: AbortSignal.timeout(5000), headers })
    if (response.status !== 401 && response.status !== 403 && !response.ok) throw new Error(`HTTP ${response.status}`)
    status = (await response.json()) as StatusBody
  } catch (error) {
    throw new UsageError(`no gateway answered at ${url} (${(error as Error).message}); is \`tollgate serve\` running? (--url URL)`)
  }
  if (response.status === 401 || response.status === 403) {
    throw new UsageError(
      `the gateway at ${url} wants an admin token for /status (admin.protect_metrics): set TOLLGATE_ADMIN_TOKEN to one (tollgate admin-token create NAME --scope read)`,
    )
  }
  printResult(json, status, () =>
    [
      `requests in flight: ${status.in_flight}`,
      ...(status.shared_state ? [`shared state: ${status.shared_state.mode}`] : []),
      ...(status.database
        ? [`database: ${status.database.up ? 'answering' : 'unreachable'}, ${status.database.spooled_bills} bills spooled`]
        : []),
      table([
        ['ROUTE', 'STATE', 'RECENT', 'FAILED', 'TRIPS', 'OPEN UNTIL', 'LAST FAILURE'],
        ...status.routes.map((route) => [
          route.route,
          route.state,
          String(route.window_requests),
          String(route.window_failures),
          String(route.trips),
          route.open_until ?? '-',
          route.last_failure ?? '-',
        ]),
      ]),
    ].join('\n'),
  )
}
