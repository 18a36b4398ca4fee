/**
 * `echomq-lambda`, the package's entry. Its public surface (SPEC §12): `enqueue`,
 * `enqueueMany`, `connect`, `loadConfig`, `readJob`, `listPending`, `mintId`, `EmqError`, its
 * subclasses and its codes (`ErrorCode`, and `OUTCOMES`: each code's class, retryability and
 * HTTP status), with the types their arguments and results name. The rest is what the
 * package's own faces (functions/) and the `emq` CLI import from the core: the prepared
 * admission of a batch, the connection's credentials, the failure rules, the operator's
 * commands (install, verify, doctor, purge) and the checks and limits the CLI applies before
 * I/O. Everything else in src/ is internal: tests, bench and the local stack import it by
 * path. A name is added here only when a user, a face or the CLI calls it.
 */
export {
  type AdmissionResult,
  type AdmissionTarget,
  type Admitted,
  type Admitting,
  admitPrepared,
  type EnqueueRequest,
  enqueue,
  enqueueMany,
  type Prepared,
  prepare,
  type RequestOrFault,
} from './admission.js';
export {
  type Config,
  DEFAULTS,
  type Env,
  type ExecutorChoice,
  type IamAuthConfig,
  loadConfig,
} from './config.js';
export { type Connection, type ConnectOptions, connect } from './connector.js';
export { reconnecting, renewCredentials } from './credentials.js';
export { checkTarget, type Finding } from './doctor.js';
export { LIBRARY_VERSION } from './families/library.js';
export { evictsJobs, install, verify } from './fence.js';
export {
  createIdMinter,
  JOB_ID_LENGTH,
  JOB_ID_PREFIX,
  jobIdTime,
  mintId,
} from './ids.js';
export { type JobRow, listPending, type PendingPage, purgeRecords, readJob } from './jobs.js';
export {
  assertCallerIdTime,
  assertIdempotencyKey,
  assertJobId,
  assertQueue,
  CALLER_ID_MAX_FUTURE_MS,
  MAX_IDEMPOTENCY_KEY_BYTES,
  MAX_QUEUE_BYTES,
} from './keyspace.js';
export { type FenceReading, readNodes } from './node-reading.js';
export { causeOf, classifyFailure, mendedByReconnecting } from './outcome-rules.js';
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
} from './outcomes.js';
export { ADMISSION_PASSES, resendUntil } from './resend-span.js';
