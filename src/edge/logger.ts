import pino from 'pino'
import type { Logger } from '../core/logger.ts'

/**
 * JSON logs to stdout, written asynchronously so a slow terminal never slows a request.
 * Secrets never get here: requests are logged by field (key id, model, status), never by header or body.
 */
export function createLogger(level: string): Logger & { flush(): Promise<void> } {
  const destination = pino.destination({ sync: false })
  const logger = pino(
    {
      level,
      base: undefined,
      redact: { paths: ['*.authorization', '*.api_key', '*.apiKey', '*.secret', '*.password'], censor: '[redacted]' },
    },
    destination,
  )
  return {
    info: (fields, message) => logger.info(fields, message),
    warn: (fields, message) => logger.warn(fields, message),
    error: (fields, message) => logger.error(fields, message),
    // Resolves once every line is written: an exit before that loses them (the asynchronous destination buffers).
    // The asynchronous flush alone lost the last line about one shutdown in five (a line logged while a write was
    // in progress); what is still buffered then is written synchronously.
    flush: () =>
      new Promise<void>((resolve) =>
        logger.flush(() => {
          try {
            destination.flushSync()
          } catch {
            // Nothing left to write, or stdout is gone: nothing more can be done for the log.
          }
          resolve()
        }),
      ),
  }
}
