/**
 * What serves each operation of the OpenAPI document: one row per operationId, naming the
 * function that serves it. A new route is the document's entry and its row here (and its
 * function, unless one here serves it already); the type of OPERATE makes a row due for
 * every operation, its matched request typed with the path's variables. (The Lambda entry is
 * handler.ts.)
 */
import type { Operation, OperationId } from '../../openapi/operations.js';
import {
  type AdmissionTarget,
  type Admitting,
  enqueueChecked,
} from '../../src/admission/admission.js';
import { readCheckedJob } from '../../src/jobs.js';
import { checkedJobId, checkedQueue, type QueueName } from '../../src/keyspace/keyspace.js';
import { InvalidInputError } from '../../src/outcomes/outcomes.js';
import { type BatchCounts, serveBatch } from './batch.js';
import type { HttpRequest } from './event.js';
import {
  admittedResponse,
  type HttpResponse,
  jobLocation,
  jobResponse,
  type ProblemCode,
  problemResponse,
} from './responses.js';
import type { PathParams } from './routes.js';

/** What the request needs of its container; tests pass their own. */
export interface HttpServices {
  /** The container's configuration and its connection, opened on first use (a failed open is retried next time). */
  admission(): AdmissionTarget;
}

/** What an operation learns on the way that the request's log line and failure answer say. */
export interface Learnt {
  /** The job the request names or was answered with. */
  readonly jobId?: string;
  /** A POST without Idempotency-Key: only its minted id can name its job to a retry. */
  readonly keyless?: boolean;
  /** A batch request's counts. */
  readonly batch?: BatchCounts;
}

/** One matched request, as the function serving its operation gets it. */
export interface MatchedRequest<Params> {
  readonly request: HttpRequest;
  /** The variables of the operation's path. */
  readonly params: Params;
  /** The path in front of `/queues/...`, for the job's URL. */
  readonly base: string;
  readonly requestId: string;
  readonly services: HttpServices;
  /** Sends nothing past the answer's deadline, and tells each admission's id as it is sent. */
  readonly admitting: Admitting;
  /** Tells the request what the operation learnt, as soon as it knows it (serve.ts keeps it). */
  readonly learn: (learnt: Learnt) => void;
}

/** What a request was answered, named in logs and metrics (`outcome`): a success word or the problem's code. */
export type AnswerKind = 'enqueued' | 'duplicate' | 'found' | 'batch' | ProblemCode;

/** An operation's answer: the response, and its kind for the log line. */
export interface Answer {
  readonly response: HttpResponse;
  readonly kind: AnswerKind;
  /** The failure behind a problem response, for the log's error class and code. Default: none. */
  readonly error?: unknown;
}

type Operate<Params> = (matched: MatchedRequest<Params>) => Promise<Answer>;

type Operations = {
  readonly [Row in Operation as Row['operationId']]: Operate<PathParams<Row['path']>>;
};

/** What a job id in the path of a PUT should be, said where it is refused. */
const PUT_ID_ADVICE =
  'Ids are minted by the service: POST /queues/{queue}/jobs without an id to get one, or mint one with `emq id` and PUT it soon. To key the job by your own identifier (an order number), POST it with that identifier in the Idempotency-Key header.';
/** What a job id in the path of a GET or HEAD should be. */
const GET_ID_ADVICE = 'Use the id a POST or PUT answered (its Location header).';

const OPERATE: Operations = {
  enqueueJob,
  enqueueBatch,
  putJob,
  getJob,
  // serve() drops the body of every HEAD answer.
  headJob: getJob,
};

/** What serves a matched operation, whose match gives every variable of its path. */
export function operate(operationId: OperationId): Operate<Readonly<Record<string, string>>> {
  return OPERATE[operationId] as Operate<Readonly<Record<string, string>>>;
}

/** `POST /queues/{queue}/jobs`: a minted id, or the Idempotency-Key's job. */
async function enqueueJob(
  matched: MatchedRequest<PathParams<'/queues/{queue}/jobs'>>,
): Promise<Answer> {
  const { request, base, requestId, learn } = matched;
  const { queue, admission } = admissionFor(matched);
  const idempotencyKey = idempotencyKeyOf(request);
  learn({ keyless: idempotencyKey === undefined });
  const admitted = await enqueueChecked(
    admission,
    { queue, payload: request.body, idempotencyKey, origin: 'http' },
    { ...matched.admitting, id: requestId },
  );
  learn({ jobId: admitted.id });
  const location = jobLocation(base, queue, admitted.id);
  return { kind: admitted.status, response: admittedResponse(admitted, location, requestId) };
}

/** `POST /queues/{queue}/jobs/batch`: many jobs in one request (openapi/openapi.yaml). */
async function enqueueBatch(
  matched: MatchedRequest<PathParams<'/queues/{queue}/jobs/batch'>>,
): Promise<Answer> {
  const { request, requestId, learn } = matched;
  const { queue, admission } = admissionFor(matched);
  if (request.headers['idempotency-key'] !== undefined) {
    throw new InvalidInputError(
      'EMQ_INVALID_REQUEST',
      'Idempotency-Key applies to single POSTs; give each job of a batch its own "idempotencyKey" (or "id").',
    );
  }
  const batch = await serveBatch(queue, request.body, requestId, admission, matched.admitting);
  learn({ batch: batch.counts });
  return {
    kind: batch.problem?.code ?? 'batch',
    response: batch.response,
    ...(batch.error === undefined ? {} : { error: batch.error }),
  };
}

/** `PUT /queues/{queue}/jobs/{id}`: the id is the request's key (docs/wire.md), so an Idempotency-Key adds nothing. */
async function putJob(
  matched: MatchedRequest<PathParams<'/queues/{queue}/jobs/{id}'>>,
): Promise<Answer> {
  const { request, params, base, requestId } = matched;
  const { queue, admission } = admissionFor(matched);
  // The id is checked by the core, with its age, which needs the configuration.
  const put = { queue, payload: request.body, id: params.id, idAdvice: PUT_ID_ADVICE };
  const admitted = await enqueueChecked(admission, put, { ...matched.admitting, id: requestId });
  const location = jobLocation(base, queue, admitted.id);
  return { kind: admitted.status, response: admittedResponse(admitted, location, requestId) };
}

/** `GET /queues/{queue}/jobs/{id}`, and HEAD: the job read back. */
async function getJob(
  matched: MatchedRequest<PathParams<'/queues/{queue}/jobs/{id}'>>,
): Promise<Answer> {
  const { requestId } = matched;
  const { queue, admission } = admissionFor(matched);
  const id = checkedJobId(matched.params.id, GET_ID_ADVICE);
  const row = await readCheckedJob(await admission.connection(), queue, id);
  if (row !== null) {
    return { kind: 'found', response: jobResponse(queue, id, row, requestId) };
  }
  const problem = {
    status: 404,
    code: 'EMQ_JOB_NOT_FOUND',
    detail: `Queue ${queue} has no job ${id} (never enqueued, or already consumed).`,
    retryable: false,
  } as const;
  return { kind: problem.code, response: problemResponse(problem, requestId) };
}

/**
 * The path's queue, checked once here (past it, only trusted builders), before the
 * container's admission is asked for: its configuration may be at fault.
 */
function admissionFor(matched: MatchedRequest<{ readonly queue: string }>): {
  readonly queue: QueueName;
  readonly admission: AdmissionTarget;
} {
  const queue = checkedQueue(matched.params.queue);
  return { queue, admission: matched.services.admission() };
}

/**
 * The POST's Idempotency-Key, once. Sent twice it is refused rather than joined: payload 1.0
 * shows the repetition, payload 2.0 and Function URLs join the values with a comma, so a comma
 * is refused too (a key is printable ASCII without spaces or commas).
 */
function idempotencyKeyOf(request: HttpRequest): string | undefined {
  const key = request.headers['idempotency-key'];
  if (request.repeated.has('idempotency-key') || key?.includes(',')) {
    throw new InvalidInputError(
      'EMQ_INVALID_REQUEST',
      'Send one Idempotency-Key header, without commas: a header sent twice, under any spelling (which API Gateway joins with commas), names no single request.',
    );
  }
  return key;
}
