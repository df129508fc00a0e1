// A client in a process of its own (`bun test/support/first-read.ts URL RAW_REQUEST`): writes the raw HTTP request
// and prints, as JSON, what its first read from the socket brought and the whole response. In the gateway's own
// process the event loop would gather a response's writes into one read; here each write the gateway made separately
// arrives, as a client sees it, as a read of its own.
export {}

const [address, request] = process.argv.slice(2) as [string, string]
const url = new URL(address)
let first: string | undefined
let whole = ''
await Bun.connect({
  hostname: url.hostname,
  port: Number(url.port),
  socket: {
    open: (socket) => void socket.write(request),
    data(_socket, chunk) {
      const text = chunk.toString()
      first ??= text
      whole += text
    },
    close: () => console.log(JSON.stringify({ first: first ?? '', whole })),
  },
})
