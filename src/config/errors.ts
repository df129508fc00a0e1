/**
 * A config file that cannot work, named at the exact setting: `models[2].price.output: must be a number ≥ 0 (USD per
 * 1M tokens), got -2`. The CLI prints it as one line, without a stack trace.
 */
export class ConfigError extends Error {
  constructor(field: string, problem: string) {
    super(`${field}: ${problem}`)
    this.name = 'ConfigError'
  }
}
