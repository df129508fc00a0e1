import { Type } from '@sinclair/typebox'
import { renamedSection, text } from './shapes.ts'

/** How bills are made durable, and how instances sharing PostgreSQL tell each other they are alive (README "Money"). */
export const ledgerSchema = renamedSection(
  {
    write_timeout_ms: Type.Integer({
      minimum: 10,
      default: 2_000,
      description:
        "How long an answer's last bytes wait for its bill to commit; past it the bill is appended to the spool " +
        '(fsynced) and the answer ends. Replayed when the database answers again and at start.',
    }),
    spool_dir: Type.Optional(
      text({
        description:
          'Where bills wait while the database is unreachable (files 0600). Default: a `spool` folder next to the ' +
          'SQLite file, or `./data/spool` with PostgreSQL.',
      }),
    ),
    heartbeat_ms: Type.Integer({
      minimum: 10,
      default: 5_000,
      description: 'How often an instance on PostgreSQL records that it is alive.',
    }),
    instance_timeout_ms: Type.Integer({
      minimum: 10,
      default: 30_000,
      description:
        'An instance silent this long is declared gone and its holds released; at least twice `heartbeat_ms` ' +
        '(its leases are trusted for this less one heartbeat).',
    }),
  },
  { description: 'Bills and instances: the spool that keeps bills while the database is away, and instance heartbeats.' },
)
