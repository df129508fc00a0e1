// The baseline: the thinnest possible Bun proxy — no auth, no parsing, no billing — forwarding to the upstream.
const upstream = process.env.UPSTREAM_URL!
const server = Bun.serve({
  hostname: '127.0.0.1',
  port: 0,
  async fetch(request) {
    const url = new URL(request.url)
    const response = await fetch(upstream + url.pathname, { method: request.method, headers: request.headers, body: request.body })
    return new Response(response.body, { status: response.status, headers: response.headers })
  },
})
console.log(JSON.stringify({ url: `http://127.0.0.1:${server.port}` }))

export { server }
