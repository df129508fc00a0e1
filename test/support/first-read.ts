// A client in a process of its own (`bun test/support/first-read.ts URL RAW_REQUEST [DATABASE KEY_ID]`): writes the
// raw HTTP request and prints, as JSON, what its first read from the socket brought, the whole response, and with a
// SQLite file and a key, how many usage rows the key had there when that first read came. In the gateway's own
// process the event loop would gather a response's separate writes into one read; here each arrives as a client
// sees it.
import { Database } from 'bun:sqlite'

const [address, request, databasePath, keyId] = process.argv.slice(2) as [string, string, string?, string?]
const url = new URL(address)
let first: string | undefined
let rowsAtFirst = -1
let whole = ''

function keyRows(): number {
  if (!databasePath) return -1
  const database = new Database(databasePath, { readonly: true })
  try {
    return (database.query('SELECT count(*) AS rows FROM usage_records WHERE key_id = ?').get(keyId ?? '') as { rows: number }).rows
  } finally {
    database.close()
  }
}

await Bun.connect({
  hostname: url.hostname,
  port: Number(url.port),
  socket: {
    open: (socket) => void socket.write(request),
    data(_socket, chunk) {
      const text = chunk.toString()
      if (first === undefined) {
        first = text
        rowsAtFirst = keyRows()
      }
      whole += text
    },
    close: () => console.log(JSON.stringify({ first: first ?? '', whole, rowsAtFirst })),
  },
})
