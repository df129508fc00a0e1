// The long-stream scenarios of bench/capacity.ts: many concurrent streams through one proxy process, started fresh
// for each run so that its memory readings are its own. `chunks`: every stream read to its end, for the CPU each
// streamed chunk costs and the peak memory. `idle`: streams held open after their first chunk, for the memory each
// open stream costs and how soon thousands of streams opened at once begin.
import { join } from 'node:path'
import { cpuMs, percentile, rssKb, type Server, spawnServer, raisedCeiling, watchPeakRss } from './processes.ts'

/**
 * The trivial proxy (passthrough.ts), a JS read loop (read-loop.ts), the billing floor (floor-proxy.ts), the trivial proxy
 * on plain sockets (socket-proxy.ts), or Tollgate.
 */
export type Proxy = 'passthrough' | 'read-loop' | 'tollgate' | 'floor-proxy' | 'socket-proxy'
const scripts: Record<Proxy, string> = {
  passthrough: 'passthrough.ts',
  'read-loop': 'read-loop.ts',
  tollgate: 'tollgate.ts',
  'floor-proxy': 'floor-proxy.ts',
  'socket-proxy': 'socket-proxy.ts',
}

export interface StreamRun {
  firstChunkP50: number
  firstChunkP99: number
  begun: number
  failed: number
  /** Resident memory once warmed up, before the streams (MB). */
  baselineMb: number
  /** chunks: the highest reading during the run; idle: once every stream has begun and settled (MB). */
  peakMb: number
  /** chunks: CPU µs per streamed chunk (the process's CPU over the run / streams × chunks). */
  cpuPerChunkUs?: number
  /** idle: KB of resident memory per open stream. */
  perStreamKb?: number
}

/**
 * A fresh proxy process, warmed up: its JIT, its connection pools and (Tollgate) its account's lease. `env` goes to
 * that process alone (profile.ts starts it with `BUN_OPTIONS=--cpu-prof-md`). `warmUp`'s streams run after the
 * short requests, all at once: the path a scenario measures is then compiled to its last tier, as it is in a server
 * that has run for more than a few seconds (without it, the JIT compiling the chunk path was 1.4 µs of Tollgate's
 * ~26 µs a chunk, and far less of the proxies' shorter paths).
 */
export async function startWarm(
  proxy: Proxy,
  upstreamUrl: string,
  model: string,
  env: Record<string, string> = {},
  warmUp?: WarmUpStreams,
): Promise<Server> {
  const server = await spawnServer(scripts[proxy], { ...env, UPSTREAM_URL: upstreamUrl }, import.meta.dir, 'ignore')
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${server.info.key ?? 'none'}` }
  for (const stream of [false, true]) {
    const body = JSON.stringify({ model, stream, messages: [{ role: 'user', content: 'warm up' }] })
    await Promise.all(
      Array.from({ length: 10 }, async () => {
        for (let index = 0; index < 20; index++)
          await (await fetch(`${server.info.url}/v1/chat/completions`, { method: 'POST', body, headers })).arrayBuffer()
      }),
    )
  }
  if (warmUp) await startClient(server, model, warmUp.streams, warmUp.content, false).line
  await Bun.sleep(1000)
  return server
}

/** SIGTERM (Tollgate drains, a profiled process writes its profile), then SIGKILL after 5 s. */
export async function stop(server: Server): Promise<void> {
  server.child.kill('SIGTERM')
  await Promise.race([server.child.exited, Bun.sleep(5000)])
  server.child.kill('SIGKILL')
}

/** stream-client.ts opening `count` streams through `server`; `line` is its report (with `hold`, once all have begun). */
export function startClient(server: Server, model: string, count: number, content: string, hold: boolean) {
  const argument = JSON.stringify({ url: server.info.url, key: server.info.key, model, count, content, hold })
  const child = Bun.spawn(['bun', join(import.meta.dir, 'stream-client.ts'), argument], {
    env: { ...process.env, ...raisedCeiling },
    stdin: 'pipe',
    stdout: 'pipe',
    stderr: 'inherit',
  })
  const line = (async () => {
    let text = ''
    for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
      text += chunk
      if (text.includes('\n')) break
    }
    return JSON.parse(text.slice(0, text.indexOf('\n'))) as { firstChunkMs: number[]; failed: number; errors: string[] }
  })()
  return { child, line }
}

function summarize(result: { firstChunkMs: number[]; failed: number; errors: string[] }, baselineKb: number, peakKb: number) {
  if (result.errors.length) console.error(`  errors: ${result.errors.join(' | ')}`)
  return {
    firstChunkP50: percentile(result.firstChunkMs, 0.5),
    firstChunkP99: percentile(result.firstChunkMs, 0.99),
    begun: result.firstChunkMs.length,
    failed: result.failed,
    baselineMb: baselineKb / 1024,
    peakMb: peakKb / 1024,
  }
}

/** Streams a scenario's process runs through before it measures (startWarm), all at once. */
export interface WarmUpStreams {
  streams: number
  content: string
}

/** Before the chunks scenario: 300 streams × 150 chunks, 45,000 chunks through the chunk path. */
export const chunksWarmUp: WarmUpStreams = { streams: 300, content: 'long chunks=150 interval_ms=10' }

/** `streams` streams of `chunks` chunks, one every `intervalMs`, all at once through a fresh `proxy` on `model`'s route. */
export async function runChunks(
  proxy: Proxy,
  upstreamUrl: string,
  model: string,
  streams: number,
  chunks: number,
  intervalMs: number,
): Promise<StreamRun> {
  const server = await startWarm(proxy, upstreamUrl, model, {}, chunksWarmUp)
  try {
    const pid = server.child.pid
    const baselineKb = await rssKb(pid)
    const peak = watchPeakRss(pid)
    const cpuBefore = await cpuMs(pid)
    const client = startClient(server, model, streams, `long chunks=${chunks} interval_ms=${intervalMs}`, false)
    const result = await client.line
    await Bun.sleep(250) // the last settlements
    const cpu = (await cpuMs(pid)) - cpuBefore
    return { ...summarize(result, baselineKb, await peak.stop()), cpuPerChunkUs: (cpu * 1000) / (streams * chunks) }
  } finally {
    await stop(server)
  }
}

/** `streams` streams opened at once through a fresh `proxy` and held open after their first chunk. */
export async function runIdle(proxy: Proxy, upstreamUrl: string, model: string, streams: number): Promise<StreamRun> {
  // No warm-up of streams by the thousand here: memory freed after one is kept by the allocators and taken again by
  // the next streams, which lowered Tollgate's figure by ~2 KB a stream (and raised the read loop's) in a trial.
  const server = await startWarm(proxy, upstreamUrl, model)
  try {
    const baselineKb = await collectedRssKb(server)
    const client = startClient(server, model, streams, 'hold', true)
    const result = await client.line
    await Bun.sleep(2000) // settled: every stream open and idle
    const openKb = await collectedRssKb(server)
    client.child.stdin.end()
    await client.child.exited
    return { ...summarize(result, baselineKb, openKb), perStreamKb: (openKb - baselineKb) / streams }
  } finally {
    await stop(server)
  }
}

/**
 * Resident memory after a full collection (SIGUSR2, which every bench server answers with `Bun.gc(true)`): both
 * readings of the idle scenario are taken so, or the warm-up's garbage, collected or not by the time of the first,
 * moves the difference by several MB from one run to the next.
 */
async function collectedRssKb(server: Server): Promise<number> {
  server.child.kill('SIGUSR2')
  await Bun.sleep(500)
  return rssKb(server.child.pid)
}
