/**
 * `echomq-lambda/client`: the producer's side of the two faces (docs/client.md, "EchoMqClient").
 * Re-exports only. It knows the HTTP contract and how ids are minted, never Valkey.
 */
export { mintId } from '../src/keyspace/ids.js';
export type { BatchJob, BatchOutcome, EnqueueOptions } from './batch.js';
export { MAX_BATCH_BYTES, MAX_BATCH_JOBS } from './batch-split.js';
export type { Payload } from './checks.js';
export { EchoMqClient, type EchoMqClientOptions, type HeaderMap } from './client.js';
export type {
  Admitted,
  Job,
  ProblemCode,
  RequestProblem,
  RetryItem,
  Written,
} from './contract.js';
export { type ClientCode, type ClientErrorFields, EmqClientError } from './errors.js';
export { RETRY_DEFAULTS, type RetryOptions } from './retry.js';
export type { AwsCredentials, Credentials } from './signing.js';
export {
  type SendJobsOptions,
  type SendJobsResult,
  type SentJob,
  type SqsEntry,
  type SqsJob,
  sendJobs,
  sqsEntry,
  type UnsentJob,
} from './sqs.js';
