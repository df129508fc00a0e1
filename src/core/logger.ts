/** The little of pino the core needs, so core code does not depend on a logging library. */
export interface Logger {
  info(fields: Record<string, unknown>, message: string): void
  warn(fields: Record<string, unknown>, message: string): void
  error(fields: Record<string, unknown>, message: string): void
}

export const silentLogger: Logger = { info() {}, warn() {}, error() {} }
