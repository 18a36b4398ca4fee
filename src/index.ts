/**
 * `echomq-lambda`, the package's entry, and only its public surface (docs/architecture.md,
 * "The public API"): `enqueue`, `enqueueMany`, `connect`, `loadConfig`, `readJob`, `listPending`,
 * `mintId`, `EmqError`, its subclasses and its codes (`ErrorCode`, and `OUTCOMES`: each code's
 * class, retryability and HTTP status), with the types their arguments and results name. The
 * package's own faces (functions/), the `emq` CLI, tests, the bench and the local stack import the
 * rest of src/ by path, so an internal can change without a breaking release.
 */
export {
  type EnqueueRequest,
  enqueue,
  enqueueMany,
  type RequestOrFault,
} from './admission/admission.js';
export type { AdmissionResult, Admitted } from './admission/admission-calls.js';
export { type Connection, type ConnectOptions, connect } from './connection/connector.js';
export { type JobRow, listPending, type PendingPage, readJob } from './jobs.js';
export { mintId } from './keyspace/ids.js';
export {
  ConfigError,
  ConflictError,
  EmqError,
  type ErrorCode,
  FenceError,
  InvalidInputError,
  OUTCOMES,
  type Outcome,
  type OutcomeClass,
  PausedError,
  RefusedError,
  RetryableError,
  UnavailableError,
  UnconfirmedError,
  type WriteStatus,
  type Written,
} from './outcomes/outcomes.js';
export { type Config, type Env, loadConfig } from './settings/config.js';
