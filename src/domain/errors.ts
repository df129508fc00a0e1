/** A rule of the domain was broken: the CLI prints it, the console answers it with a 4xx. */
export class DomainError extends Error {
  constructor(
    readonly kind: 'not_found' | 'conflict' | 'invalid',
    message: string,
  ) {
    super(message)
    this.name = 'DomainError'
  }
}
