import type { Server } from 'bun'
import type { Config } from '../config/types.ts'
import type { Logger } from '../core/logger.ts'
import type { Relay } from '../relay/relay.ts'
import type { Store } from '../domain/repositories.ts'
import type { KeyCache } from '../domain/key-cache.ts'
import type { KeyService } from '../domain/key-service.ts'
import type { BudgetService } from '../domain/budgets/service.ts'
import type { Ledger } from '../domain/ledger.ts'
import type { FailureLog } from '../domain/failure-log.ts'
import type { SharedStateHandle } from '../domain/shared-state.ts'
import type { TaskService } from '../domain/tasks/service.ts'
import type { TaskRecord } from '../domain/tasks/records.ts'
import type { OtlpExporter } from './otlp-exporter.ts'
import type { Alerting } from './alerting.ts'

/** Everything a route needs, built once at start (gateway.ts) and handed to each plugin as plain values. */
export interface Services {
  /** The config as it stands now: a reload replaces what this reads. */
  readonly config: Config
  store: Store
  keys: KeyCache
  /** Every key change (create, edit, rotate, revoke) from the console and the admin API: checked, stored, announced. */
  keyService: KeyService
  /** Every project and budget change from the console and the admin API: checked, stored with its audit row. */
  budgetService: BudgetService
  ledger: Ledger
  /** Webhooks, the alerts they are sent, and their delivery (domain/alerts; started with the gateway). */
  alerting: Alerting
  relay: Relay
  /** Batches and their files (domain/tasks); the runner that works them is started by the gateway. */
  tasks: TaskService
  /** A task's results as JSONL lines in its protocol's shape (the console's download; protocols render them). */
  taskResults?: (task: TaskRecord) => AsyncIterable<string>
  logger: Logger
  /** Where the console's sign-in throttle counts failures: shared through Redis when configured, else in memory. */
  signInFailures?: FailureLog
  /** Whether state is shared with other instances (Redis) and can be now: `/metrics` and `/status` show it. */
  shared?: SharedStateHandle
  /** Where trace spans go when `telemetry:` is configured: `/metrics` counts what it sent and dropped. */
  telemetry?: OtlpExporter
  /** Unknown-key lookups in progress, by client address: at most limits.unauthenticated_per_address each (front-door.ts). */
  unknownKeyLookups: Map<string, number>
  /** The listening server, once there is one: it alone knows a request's peer address (client-address.ts). */
  server?: Server<unknown>
}
