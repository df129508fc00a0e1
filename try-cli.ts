import { startTestGateway } from './test/support/gateway.ts'
const gw = await startTestGateway({ config: { providers: [{ name: 'mock', type: 'mock' }], models: [
  { id: 'tollgate-mock', provider: 'mock', price: { input: 1, output: 2 }, max_output_tokens: 4096 },
] } })
const server = Bun.serve({ port: 0, hostname: '127.0.0.1', idleTimeout: 120, async fetch(req) {
  const url = new URL(req.url); const body = req.method === 'GET' ? undefined : await req.text()
  console.error('REQ', req.method, url.pathname + url.search, body?.slice(0, 300))
  const r = await fetch(gw.url + url.pathname + url.search, { method: req.method, headers: req.headers, body })
  const text = await r.text(); console.error('RES', r.status, text.slice(0, 500))
  return new Response(text, { status: r.status, headers: r.headers })
} })
const home = (await import('node:fs')).mkdtempSync('/tmp/gcli-home-')
const fs = await import('node:fs'); fs.mkdirSync(home + '/.gemini'); fs.writeFileSync(home + '/.gemini/settings.json', JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } }, telemetry: { enabled: false }, privacy: { usageStatisticsEnabled: false } }))
const proc = Bun.spawn(['node', process.cwd() + '/node_modules/@google/gemini-cli/bundle/gemini.js', '-m', 'tollgate-mock', '-p', 'say hi'], {
  env: { PATH: process.env.PATH!, HOME: home, GOOGLE_GEMINI_BASE_URL: `http://127.0.0.1:${server.port}`, GEMINI_API_KEY: gw.key, GEMINI_CLI_TRUST_WORKSPACE: 'true', GEMINI_TELEMETRY_ENABLED: 'false', NO_COLOR: '1', CI: 'true' },
  cwd: home, stdout: 'pipe', stderr: 'pipe', stdin: 'ignore',
})
const timer = setTimeout(() => proc.kill(), 90_000)
const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()])
clearTimeout(timer)
console.log('EXIT', await proc.exited); console.log('STDOUT', out); console.log('STDERR', err.slice(0, 3000))
server.stop(true); await gw.stop()
