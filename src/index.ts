export { type Config, type Env, type ExecutorChoice, loadConfig } from './config.js';
export {
  type Connection,
  type ConnectOptions,
  connect,
  connectOptionsFrom,
} from './connector.js';
export type { EnqueueCall, Executor, ExecutorKind } from './executors/executor.js';
export { checkFence, type FenceReading, installFence, readFence } from './fence.js';
export {
  createIdMinter,
  type IdMinter,
  isJobId,
  jobIdAt,
  jobIdTime,
  mintJobId,
} from './ids.js';
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
  assertIdempotencyKey,
  assertJobId,
  assertQueue,
  dedupeKey,
  fenceKey,
  jobKey,
  pendingKey,
  queueSlot,
  slotOf,
} from './keyspace.js';
export {
  ConfigError,
  type ConflictCode,
  ConflictError,
  classify,
  classifyFailure,
  EmqError,
  type ErrorCode,
  FenceError,
  type InvalidInputCode,
  InvalidInputError,
  PausedError,
  type RefusedCode,
  RefusedError,
  RetryableError,
  UnavailableError,
  type WriteStatus,
} from './outcomes.js';
