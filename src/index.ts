export {
  type AdmissionResult,
  type AdmissionTarget,
  type Admitted,
  type Admitting,
  admitPrepared,
  type EnqueueRequest,
  enqueue,
  enqueueMany,
  type Invocation,
  type Prepared,
  payloadDigest,
  prepare,
  type RequestOrFault,
} from './admission.js';
export {
  type Config,
  configure,
  DEFAULTS,
  type Env,
  EXECUTORS,
  type ExecutorChoice,
  type IamAuthConfig,
  LIMITS,
  loadConfig,
} from './config.js';
export {
  type Connection,
  type ConnectOptions,
  connect,
  type RuntimeOptions,
  type Warn,
} from './connector.js';
export { reconnecting, renewCredentials } from './credentials.js';
export { type Check, checkTarget, type TargetReport } from './doctor.js';
export type {
  AdmissionArgs,
  AdmitCall,
  Executor,
  ExecutorKind,
} from './executors/executor.js';
export { MAX_ADMISSIONS_PER_CALL } from './executors/executor.js';
export {
  LIBRARY_SOURCE,
  LIBRARY_VERSION,
  SCRIPT_SHA,
  SCRIPT_SOURCE,
} from './executors/library.js';
export { checkNodes, evictsJobs, install, loadScripts, verify } from './fence.js';
export {
  createIdMinter,
  type IdMinter,
  isJobId,
  JOB_ID_LENGTH,
  JOB_ID_PREFIX,
  jobIdAt,
  jobIdTime,
  mintJobId,
  /** The public name of `mintJobId` (SPEC §12). */
  mintJobId as mintId,
} from './ids.js';
export {
  type JobRow,
  listPending,
  type PendingPage,
  type PurgeReport,
  purgeRecords,
  readJob,
} from './jobs.js';
export {
  assertCallerIdTime,
  assertIdempotencyKey,
  assertJobId,
  assertQueue,
  CALLER_ID_MAX_FUTURE_MS,
  fenceKey,
  jobKey,
  type KeyNamespace,
  MAX_IDEMPOTENCY_KEY_BYTES,
  MAX_QUEUE_BYTES,
  pendingKey,
  queueSlot,
  RECORD_SLOTS,
  recordField,
  recordHash,
  recordSlotKeys,
  slotOf,
} from './keyspace.js';
export { type FenceReading, type FenceTarget, readNodes } from './node-reading.js';
export {
  type CauseFields,
  causeOf,
  classifyFailure,
  type FailureContext,
  mendedByReconnecting,
} from './outcome-rules.js';
export {
  type ConfigCode,
  ConfigError,
  type ConflictCode,
  ConflictError,
  EmqError,
  type ErrorCode,
  FenceError,
  type InvalidInputCode,
  InvalidInputError,
  OUTCOMES,
  type Outcome,
  type OutcomeClass,
  PausedError,
  type RefusedCode,
  RefusedError,
  RetryableError,
  UnavailableError,
  UnconfirmedError,
  type WriteStatus,
  type Written,
} from './outcomes.js';
export { ADMISSION_PASSES, resendSpanMs, resendUntil } from './resend-span.js';
