/** The state shared by every instance (Redis), as the rest of the gateway sees it: whether it is reachable now. */
export interface SharedStateHandle {
  /** Redis answers: limits, sign-in throttle, key changes and route health are shared. False: each instance alone. */
  readonly up: boolean
  /** Times Redis was found unreachable since start. */
  readonly outages: number
  /** Close the connections (gateway shutdown). */
  stop(): void
}
