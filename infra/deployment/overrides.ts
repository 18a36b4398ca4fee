/**
 * What the construct's override props (`functionProps`, `queueProps`) set that the deployment's
 * checks must see, as plain data. A value that reaches Lambda or SQS through an override is held
 * to the same rule as the option it overrides, and a problem names the prop it came through.
 */

/** The source queue's figures that `queueProps` sets. */
export interface QueueOverrides {
  readonly visibilityTimeoutSeconds?: number | undefined;
  readonly maxReceiveCount?: number | undefined;
  readonly retentionSeconds?: number | undefined;
}

export interface Overrides {
  /** `functionProps.timeout` in seconds: both faces' functions take it. */
  readonly functionTimeoutSeconds?: number | undefined;
  /** The name of `functionProps.runtime`. */
  readonly runtime?: string | undefined;
  /** `functionProps.reservedConcurrentExecutions`. */
  readonly reservedConcurrency?: number | undefined;
  /** Fields of `functionProps` the construct owns, each with the construct's prop that sets it. */
  readonly owned?: readonly { readonly prop: string; readonly use: string }[] | undefined;
  /** What `queueProps` sets on the source queue the construct makes. */
  readonly queue?: QueueOverrides | undefined;
}

/** The name a problem gives the function timeout, by where it came from. */
export const FUNCTION_TIMEOUT_PROP = 'functionProps.timeout';
