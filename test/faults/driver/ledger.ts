/**
 * What the load driver sent and what came back, one entry per logical request. Each payload
 * carries its face and number, so the audit can tie every row in Valkey to the request that
 * made it.
 */

export type Face = 'http' | 'sqs';

/** Where a logical request ended. */
export type Settlement =
  /** Still being sent (or never sent). */
  | 'open'
  /** A 2xx answer (HTTP) or a record left out of batchItemFailures (SQS). */
  | 'accepted'
  /** A non-retryable answer: the driver stops, as a client would. */
  | 'refused'
  /** Retryable answers until the retry bound: the client gave up. */
  | 'gave-up';

export interface LogicalRequest {
  readonly face: Face;
  /** The request's number within its face. */
  readonly n: number;
  readonly queue: string;
  readonly payload: Buffer;
  /** Times it was sent (1 + retries). */
  attempts: number;
  /** Answers that said "retry". */
  retryable: number;
  /** The longest any send of it waited for its answer, in ms (an SQS send is its batch). */
  slowestMs: number;
  settlement: Settlement;
  /** The job id the caller was told: the HTTP body's id, the SQS record's logged id. */
  toldId: string | undefined;
}

const TAG = /^(http|sqs):(\d+)\|/;

/**
 * `<face>:<n>|` then some bytes: every other payload ends in binary bytes (NUL, 0xFF, invalid
 * UTF-8), so a row proves the bytes went through verbatim too.
 */
export function payloadOf(face: Face, n: number): Buffer {
  const tag = Buffer.from(`${face}:${n}|`, 'latin1');
  const tail =
    n % 2 === 0
      ? Buffer.from(`{"order":${n},"qty":${n % 7}}`, 'utf8')
      : Buffer.from([0x00, 0xff, 0xc3, 0x28, n & 0xff, 0x0a]);
  return Buffer.concat([tag, tail]);
}

/** The face and number a row's payload carries, or undefined for a row no request made. */
export function tagOf(payload: Buffer): { face: Face; n: number } | undefined {
  const match = TAG.exec(payload.subarray(0, 32).toString('latin1'));
  if (match === null) return undefined;
  return { face: match[1] as Face, n: Number(match[2]) };
}

export class Ledger {
  readonly requests: LogicalRequest[] = [];
  readonly #byTag = new Map<string, LogicalRequest>();
  /** Count of non-accepted answers by face and code, e.g. `http 503 EMQ_UNAVAILABLE`. */
  readonly answers = new Map<string, number>();

  add(face: Face, n: number, queue: string): LogicalRequest {
    const request: LogicalRequest = {
      face,
      n,
      queue,
      payload: payloadOf(face, n),
      attempts: 0,
      retryable: 0,
      slowestMs: 0,
      settlement: 'open',
      toldId: undefined,
    };
    this.requests.push(request);
    this.#byTag.set(`${face}:${n}`, request);
    return request;
  }

  /** Counts an answer that was not an acceptance, by a label such as its code. */
  note(face: Face, label: string): void {
    const key = `${face} ${label}`;
    this.answers.set(key, (this.answers.get(key) ?? 0) + 1);
  }

  of(face: Face): LogicalRequest[] {
    return this.requests.filter((request) => request.face === face);
  }

  find(face: Face, n: number): LogicalRequest | undefined {
    return this.#byTag.get(`${face}:${n}`);
  }
}
