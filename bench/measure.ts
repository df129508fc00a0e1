import { writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export interface Measurement {
  rps: number
  p50: number
  p99: number
  errors: number
  /** Requests completed in the measured run. */
  requests: number
  tool: 'wrk' | 'autocannon'
}

/**
 * Drive `url` with POSTs for `seconds`, preferring wrk (a C load generator steals less CPU from the servers). With
 * `keys` (more than one), wrk sends each request with the next of them as its bearer token, in turn (autocannon
 * sends `headers` as they are).
 */
export async function measure(
  url: string,
  body: string,
  headers: Record<string, string>,
  seconds: number,
  connections: number,
  keys: string[] = [],
): Promise<Measurement> {
  return Bun.which('wrk')
    ? measureWithWrk(url, body, headers, seconds, connections, keys)
    : measureWithAutocannon(url, body, headers, seconds, connections)
}

async function measureWithWrk(
  url: string,
  body: string,
  headers: Record<string, string>,
  seconds: number,
  connections: number,
  keys: string[],
): Promise<Measurement> {
  const script = join(tmpdir(), `tollgate-bench-${process.pid}.lua`)
  const rotation =
    keys.length > 1
      ? [
          `local keys = { ${keys.map((key) => JSON.stringify(`Bearer ${key}`)).join(', ')} }`,
          `local sent = 0`,
          `request = function()`,
          `  sent = sent + 1`,
          `  wrk.headers["authorization"] = keys[(sent % #keys) + 1]`,
          `  return wrk.format()`,
          `end`,
        ]
      : []
  writeFileSync(
    script,
    [
      `wrk.method = "POST"`,
      `wrk.body = ${JSON.stringify(body)}`,
      ...Object.entries(headers).map(([name, value]) => `wrk.headers[${JSON.stringify(name)}] = ${JSON.stringify(value)}`),
      ...rotation,
      `done = function(summary, latency, requests)`,
      `  io.write(string.format("RESULT %f %f %f %d %d\\n", summary.requests / (summary.duration / 1e6), latency:percentile(50) / 1000, latency:percentile(99) / 1000, summary.errors.status + summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout, summary.requests))`,
      `end`,
    ].join('\n'),
  )
  const run = Bun.spawnSync(['wrk', '-t', '2', '-c', String(connections), '-d', `${seconds}s`, '-s', script, url], {
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const match = /RESULT (\S+) (\S+) (\S+) (\d+) (\d+)/.exec(run.stdout.toString())
  if (!match) throw new Error(`wrk failed: ${run.stdout}${run.stderr}`)
  return {
    rps: Number(match[1]),
    p50: Number(match[2]),
    p99: Number(match[3]),
    errors: Number(match[4]),
    requests: Number(match[5]),
    tool: 'wrk',
  }
}

async function measureWithAutocannon(
  url: string,
  body: string,
  headers: Record<string, string>,
  seconds: number,
  connections: number,
): Promise<Measurement> {
  const { default: autocannon } = await import('autocannon')
  const result = await autocannon({ url, method: 'POST', body, headers, duration: seconds, connections })
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx,
    requests: result.requests.total,
    tool: 'autocannon',
  }
}
