// An OTLP/HTTP collector stand-in for bench/compare.ts --telemetry: accepts every POST /v1/traces, reads it whole.
// A process of its own: compare.ts blocks its own event loop while wrk runs.
const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: async (request) => (await request.arrayBuffer(), Response.json({})) })
console.log(JSON.stringify({ url: `http://127.0.0.1:${server.port}` }))
