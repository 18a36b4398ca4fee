export {
  type Config,
  DEFAULTS,
  type Env,
  type ExecutorChoice,
  type IamAuthConfig,
  loadConfig,
} from './config.js';
export {
  type Connection,
  type ConnectOptions,
  connect,
  connectOptionsFrom,
} from './connector.js';
export type { AdmitCall, EnqueueCall, Executor, ExecutorKind } from './executors/executor.js';
export { LIBRARY_NAME, LIBRARY_SOURCE, LIBRARY_VERSION } from './executors/library.js';
export {
  createIdMinter,
  type IdMinter,
  isJobId,
  jobIdAt,
  jobIdTime,
  mintJobId,
} from './ids.js';
export {
  checkNodes,
  type FenceReading,
  type InstallTarget,
  install,
  /** The name `emq fence install` and the custom resource know it by. */
  install as installFence,
  readNodes,
  readNodes as readFence,
} from './install.js';
export {
  type Admitted,
  checkRequest,
  type EnqueueRequest,
  enqueue,
  enqueueMany,
  type JobRow,
  readJob,
} from './jobs.js';
export {
  assertCallerIdTime,
  assertIdempotencyKey,
  assertJobId,
  assertQueue,
  dedupeKey,
  fenceKey,
  jobKey,
  type KeyNamespace,
  pendingKey,
  queueSlot,
  slotOf,
} from './keyspace.js';
export { classify, classifyFailure } from './outcome-rules.js';
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
} from './outcomes.js';
