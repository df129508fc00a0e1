import { Type } from '@sinclair/typebox'
import { parseAddressBlock } from '../../core/address-block.ts'
import { parseDatabaseUrl } from '../../core/database-url.ts'
import { oneOf, readOnly, refuse, renamedSection, section, text } from './shapes.ts'

/** The process itself: where it listens and keeps its data, whom it believes, how it logs and stops. */

/** 0 asks the system for a free port (tests do); above 65535 no socket can listen. Also checks $PORT. */
export const portSchema = Type.Integer({
  minimum: 0,
  maximum: 65535,
  default: 8080,
  errorMessage: 'must be a port number from 0 to 65535',
  description: 'The TCP port to listen on; 0 takes any free port. The `PORT` environment variable overrides it.',
})

export const listenSchema = section(
  {
    host: text({
      default: '127.0.0.1',
      description:
        'The address to listen on: `127.0.0.1` for this machine only, `0.0.0.0` or `::` for every interface. ' +
        'The `HOST` environment variable overrides it.',
    }),
    port: portSchema,
  },
  { description: 'Where the gateway accepts connections (reload: needs a restart).' },
)

/** Only the documented forms (core/database-url.ts): a guess would put the data somewhere unexpected. Also checks $TOLLGATE_DATABASE. */
export const databaseSchema = Type.Transform(
  text({
    default: 'sqlite:./data/tollgate.db',
    description:
      'Where accounts, keys, balances and usage live: `sqlite:PATH` (one instance) or ' +
      '`postgres://USER@HOST:PORT/DATABASE` (several instances); nothing else is accepted. ' +
      'The `TOLLGATE_DATABASE` environment variable overrides it.',
  }),
)
  .Decode((value) => {
    const target = parseDatabaseUrl(value)
    return typeof target === 'string' ? refuse(target) : value
  })
  .Encode(readOnly)

export const redisSchema = text({
  pattern: '^rediss?://[^/]',
  errorMessage: 'must be a URL such as redis://127.0.0.1:6379/0',
  description:
    'Shared state for several instances (per-key limits, the sign-in throttle, key changes, route health), ' +
    'e.g. `redis://127.0.0.1:6379/0`. Without it each instance keeps its own.',
})

export const trustedProxiesSchema = Type.Transform(
  Type.Array(text(), {
    default: [],
    description:
      'Peers whose `X-Forwarded-For` is believed (IP addresses or CIDR blocks such as `10.0.0.0/8`); from ' +
      "anyone else the header is ignored and the peer's own address counts.",
  }),
)
  .Decode((entries) => {
    const invalid = entries.find((entry) => parseAddressBlock(entry) === undefined)
    return invalid === undefined ? entries : refuse(`"${invalid}" is not an IP address or CIDR block such as 10.0.0.0/8`)
  })
  .Encode(readOnly)

const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const

export const logSchema = section(
  {
    level: oneOf(logLevels, { default: 'info', description: 'The least severe log lines written (JSON lines on stdout).' }),
  },
  { description: 'Logging (reload: needs a restart).' },
)

export const shutdownSchema = renamedSection(
  {
    drain_s: Type.Number({
      minimum: 0,
      default: 30,
      description: 'On SIGTERM or SIGINT, how long requests in flight (streams too) may finish before they are ended.',
    }),
  },
  { description: 'Stopping (reload: needs a restart).' },
)

export const adminSchema = renamedSection(
  {
    protect_metrics: Type.Boolean({
      default: false,
      description: '`true` puts `/metrics` and `/status` behind an admin token (a `read` token is enough).',
    }),
  },
  { description: "The admin API's reach." },
)
