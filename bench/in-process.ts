// The upstream and one proxy in this very process, for the heap counts of idle-census.ts and idle-snapshot.ts (the
// upstream's share of the heap is the same whichever proxy is measured).

/** Start the bench upstream and `which` proxy (`tollgate`, else the trivial proxy) here; the proxy's address and key. */
export async function startInProcess(which: string): Promise<{ url: string; key?: string }> {
  const { server: upstream } = await import('./upstream.ts')
  process.env.UPSTREAM_URL = `http://127.0.0.1:${upstream.port}`
  if (which === 'tollgate') {
    const { startBenchGateway } = await import('./bench-gateway.ts')
    const { gateway, secret } = await startBenchGateway(process.env.UPSTREAM_URL)
    return { url: gateway.url, key: secret }
  }
  const { server } = await import('./passthrough.ts')
  return { url: `http://127.0.0.1:${server.port}` }
}
