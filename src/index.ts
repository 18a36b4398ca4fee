export { type Config, type Env, type ExecutorChoice, loadConfig } from './config.js';
export {
  createIdMinter,
  type IdMinter,
  isJobId,
  jobIdAt,
  jobIdTime,
  mintJobId,
} from './ids.js';
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
