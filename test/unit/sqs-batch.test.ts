import type { SendMessageBatchCommand, SendMessageBatchCommandOutput } from '@aws-sdk/client-sqs';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { setLogSink } from '../../functions/shared/log.js';
import { handleSqsBatch, type SqsBatchDeps } from '../../functions/sqs/batch.js';
import type { DlqSender } from '../../functions/sqs/dlq.js';
import { type Config, ConfigError, type Connection, UnavailableError } from '../../src/index.js';
import { mintId } from '../../src/keyspace/ids.js';
import { configure } from '../../src/settings/config.js';
import { sqsEvent, sqsRecord, stringAttribute } from '../fixtures/sqs/records.js';

const DLQ = 'https://sqs.us-east-2.amazonaws.com/123456789012/emq-dead';

let lines: Record<string, unknown>[] = [];
let restore: ((line: string) => void) | undefined;
beforeEach(() => {
  lines = [];
  restore = setLogSink((line) => lines.push(JSON.parse(line)), 'debug');
});
afterEach(() => {
  if (restore !== undefined) setLogSink(restore);
});

/** An SQS client faked at the SDK boundary that confirms every letter. */
function acceptingSqs() {
  const sent: SendMessageBatchCommand['input'][] = [];
  const sqs: DlqSender = {
    async send(command): Promise<SendMessageBatchCommandOutput> {
      sent.push(command.input);
      const entries = command.input.Entries ?? [];
      return {
        $metadata: {},
        Successful: entries.map(({ Id }) => ({ Id, MessageId: `d-${Id}`, MD5OfMessageBody: '' })),
        Failed: [],
      };
    },
  };
  return { sqs, sent };
}

type Open = () => Promise<Connection>;

/** Valkey cannot be reached: the connection never opens. */
function unreachable(error: Error = new UnavailableError('down')): Open {
  return () => Promise.reject(error);
}

function deps(connection: Open, sqs: DlqSender, config: Partial<Config> = {}): SqsBatchDeps {
  return { admission: { config: configure(config), connection }, sqs };
}

const records = (lines: Record<string, unknown>[]) =>
  lines.filter((line) => line.message === 'sqs record');

describe('handleSqsBatch without Valkey', () => {
  it('answers an empty batch with no failures', async () => {
    const { sqs } = acceptingSqs();
    expect(await handleSqsBatch(sqsEvent([]), deps(unreachable(), sqs))).toEqual({
      batchItemFailures: [],
    });
  });

  it('dead-letters records the face refuses without opening a connection', async () => {
    const { sqs, sent } = acceptingSqs();
    let opened = 0;
    const connection = () => {
      opened += 1;
      return Promise.reject(new Error('not expected'));
    };
    const record = sqsRecord({ body: 'x', encoding: 'gzip' });
    const response = await handleSqsBatch(
      sqsEvent([record]),
      deps(connection, sqs, {
        dlqUrl: DLQ,
      }),
    );
    expect(response.batchItemFailures).toEqual([]);
    expect(opened).toBe(0);
    expect(sent[0]?.Entries?.[0]?.MessageAttributes?.['emq-error-code']?.StringValue).toBe(
      'EMQ_INVALID_REQUEST',
    );
  });

  it('lists every record when Valkey cannot be reached, and does not throw', async () => {
    const { sqs, sent } = acceptingSqs();
    const batch = [sqsRecord({ body: 'a' }), sqsRecord({ body: 'b' })];
    const response = await handleSqsBatch(
      sqsEvent(batch),
      deps(unreachable(), sqs, {
        dlqUrl: DLQ,
      }),
    );
    expect(response.batchItemFailures).toEqual(
      batch.map(({ messageId }) => ({ itemIdentifier: messageId })),
    );
    expect(sent).toEqual([]);
    expect(lines.find((line) => line.message === 'sqs batch')).toMatchObject({
      level: 'warn',
      records: 2,
      batchItemFailures: 2,
    });
  });

  it('retries good records rather than dead-lettering them when the connection fails for good', async () => {
    const { sqs, sent } = acceptingSqs();
    const noModule = new ConfigError('no module', { code: 'EMQ_NO_MODULE' });
    const record = sqsRecord({ body: 'a' });
    const response = await handleSqsBatch(
      sqsEvent([record]),
      deps(unreachable(noModule), sqs, {
        dlqUrl: DLQ,
      }),
    );
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: record.messageId }]);
    expect(sent).toEqual([]);
    // Retried, and an error for operators (a retry cannot mend a configuration fault), said
    // once by the batch's line.
    expect(records(lines)).toMatchObject([
      { level: 'warn', disposition: 'retry', code: 'EMQ_NO_MODULE', retryable: false },
    ]);
    expect(lines.filter((line) => line.level === 'error')).toMatchObject([
      { message: 'sqs batch', code: 'EMQ_NO_MODULE', 'retry:EMQ_NO_MODULE': 1 },
    ]);
  });

  it('says once per batch, at error, the cause that made every record come back', async () => {
    const { sqs, sent } = acceptingSqs();
    const noperm = new ConfigError('The server refused a command', {
      cause: new Error("NOPERM User emq-app has no permissions to run the 'fcall' command"),
    });
    const batch = Array.from({ length: 5 }, (_, i) => sqsRecord({ body: `r${i}` }));
    const response = await handleSqsBatch(
      sqsEvent(batch),
      deps(unreachable(noperm), sqs, { dlqUrl: DLQ }),
    );
    // Retried, as a server-side fault must be: nothing dead-lettered.
    expect(response.batchItemFailures).toEqual(
      batch.map(({ messageId }) => ({ itemIdentifier: messageId })),
    );
    expect(sent).toEqual([]);
    const errors = lines.filter((line) => line.level === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({
      message: 'sqs batch',
      code: 'EMQ_CONFIG',
      cause: 'NOPERM',
      records: 5,
      batchItemFailures: 5,
      FullyRetriedBatches: 1,
    });
    expect(records(lines).map((line) => [line.level, line.code, line.cause])).toEqual(
      batch.map(() => ['warn', 'EMQ_CONFIG', 'NOPERM']),
    );
  });

  it('dead-letters a bad queue, a bad id and an oversized body while Valkey is down, and retries the good one', async () => {
    const { sqs, sent } = acceptingSqs();
    const bad = [
      sqsRecord({ body: 'a', queue: 'no{braces}' }),
      sqsRecord({ body: 'b', jobId: 'JOB-not-an-id' }),
      sqsRecord({ body: 'x'.repeat(64) }),
    ];
    const good = sqsRecord({ body: 'fine' });
    const response = await handleSqsBatch(
      sqsEvent([...bad, good]),
      deps(unreachable(), sqs, {
        dlqUrl: DLQ,
        maxPayloadBytes: 32,
      }),
    );
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: good.messageId }]);
    const lettered = sent.flatMap((input) => input.Entries ?? []);
    expect(lettered).toHaveLength(3);
    expect(records(lines).map((line) => line.code)).toEqual([
      'EMQ_INVALID_QUEUE',
      'EMQ_INVALID_ID',
      'EMQ_PAYLOAD_TOO_LARGE',
      'EMQ_UNAVAILABLE',
    ]);
  });

  it('makes a permanent failure a batch item failure, logged once, when no DLQ is set', async () => {
    const { sqs, sent } = acceptingSqs();
    const record = sqsRecord({ body: 'x', encoding: 'zip' });
    const response = await handleSqsBatch(sqsEvent([record]), deps(unreachable(), sqs));
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: record.messageId }]);
    expect(sent).toEqual([]);
    expect(records(lines)).toEqual([
      expect.objectContaining({
        level: 'error',
        messageId: record.messageId,
        disposition: 'undelivered',
        outcome: 'EMQ_INVALID_REQUEST',
        reason: 'no-dlq',
        code: 'EMQ_INVALID_REQUEST',
      }),
    ]);
  });

  it('retries a record whose dead letter SQS refused', async () => {
    const sqs: DlqSender = {
      async send(command) {
        return {
          $metadata: {},
          Successful: [],
          Failed: (command.input.Entries ?? []).map(({ Id }) => ({
            Id,
            SenderFault: false,
            Code: 'InternalError',
          })),
        };
      },
    };
    const record = sqsRecord({ body: 'x', encoding: 'zip' });
    const response = await handleSqsBatch(
      sqsEvent([record]),
      deps(unreachable(), sqs, {
        dlqUrl: DLQ,
      }),
    );
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: record.messageId }]);
    expect(records(lines)[0]).toMatchObject({
      disposition: 'undelivered',
      reason: 'dlq-send-failed',
      dlqError: 'InternalError',
    });
  });

  it('logs the SDK error name and code of a DLQ send that throws', async () => {
    const sqs: DlqSender = {
      async send() {
        throw Object.assign(new Error('Access to https://sqs.example denied'), {
          name: 'AccessDenied',
          Code: 'AWS.SimpleQueueService.AccessDenied',
          $metadata: { httpStatusCode: 403 },
        });
      },
    };
    const record = sqsRecord({ body: 'x', encoding: 'zip' });
    const response = await handleSqsBatch(
      sqsEvent([record]),
      deps(unreachable(), sqs, {
        dlqUrl: DLQ,
      }),
    );
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: record.messageId }]);
    expect(records(lines)[0]).toMatchObject({
      level: 'error',
      disposition: 'undelivered',
      dlqError: 'AccessDenied',
      dlqErrorCode: 'AWS.SimpleQueueService.AccessDenied',
    });
    expect(JSON.stringify(lines)).not.toContain('sqs.example');
  });

  it('at INFO, still writes a failed record (WARN) and the batch line with its metrics', async () => {
    setLogSink((line) => lines.push(JSON.parse(line)), 'info');
    lines.length = 0;
    const record = sqsRecord({ body: 'x', encoding: 'zip' });
    await handleSqsBatch(
      sqsEvent([record]),
      deps(unreachable(), acceptingSqs().sqs, { dlqUrl: DLQ }),
    );
    expect(records(lines).map((line) => line.level)).toEqual(['warn']);
    const batch = lines.find((line) => line.message === 'sqs batch');
    expect(batch).toMatchObject({ level: 'info', records: 1, Batches: 1 });
  });

  it('on FIFO, goes on past a dead-lettered record but skips the rest of a failed group', async () => {
    const { sqs, sent } = acceptingSqs();
    const a1 = sqsRecord({ groupId: 'a', body: 'x', encoding: 'zip' });
    const a2 = sqsRecord({ groupId: 'a', body: 'a2' });
    const b1 = sqsRecord({ groupId: 'b', body: 'b1' });
    const b2 = sqsRecord({ groupId: 'b', body: 'x', encoding: 'zip' });
    const response = await handleSqsBatch(
      sqsEvent([a1, b1, a2, b2]),
      deps(unreachable(), sqs, {
        dlqUrl: DLQ,
      }),
    );
    // a1 went to the DLQ, so a2 was attempted (and failed: Valkey is down); b1 failed first,
    // so b2 was never attempted, not even dead-lettered.
    expect(response.batchItemFailures).toEqual([
      { itemIdentifier: b1.messageId },
      { itemIdentifier: a2.messageId },
      { itemIdentifier: b2.messageId },
    ]);
    expect(
      sent.flatMap((request) => request.Entries ?? []).map((entry) => entry.MessageBody),
    ).toEqual([a1.body]);
    expect(records(lines).map((line) => line.disposition)).toEqual([
      'dead-lettered',
      'retry',
      'retry',
      'skipped',
    ]);
  });

  it('never logs a body or payload', async () => {
    const { sqs } = acceptingSqs();
    const secret = 'do-not-log-this-body';
    await handleSqsBatch(
      sqsEvent([sqsRecord({ body: secret, encoding: 'zip' }), sqsRecord({ body: secret })]),
      deps(unreachable(), sqs, { dlqUrl: DLQ }),
    );
    expect(lines.length).toBeGreaterThan(0);
    expect(JSON.stringify(lines)).not.toContain(secret);
  });
});

/** A connection that must not be opened: nothing may be written. */
function untouchable() {
  const opened = { count: 0 };
  const open: Open = () => {
    opened.count += 1;
    return Promise.reject(new Error('no connection was expected'));
  };
  return { open, opened };
}

describe('handleSqsBatch on events SQS never sends', () => {
  it.each([
    ['no Records', {}],
    ['Records that are not a list', { Records: { 0: sqsRecord() } }],
    ['a record that is null', { Records: [sqsRecord(), null] }],
    ['a record that is a text', { Records: ['record'] }],
  ])('refuses an event with %s by a throw, before any connection', async (_, event) => {
    const { sqs, sent } = acceptingSqs();
    const { open, opened } = untouchable();
    await expect(
      handleSqsBatch(event as SQSEvent, deps(open, sqs, { dlqUrl: DLQ })),
    ).rejects.toMatchObject({ code: 'EMQ_INVALID_REQUEST' });
    expect(opened.count).toBe(0);
    expect(sent).toEqual([]);
  });

  const nameless: [string, (record: SQSRecord) => unknown][] = [
    ['no messageId', ({ messageId: _, ...rest }) => rest],
    ['a messageId that is null', (record) => ({ ...record, messageId: null })],
    ['a messageId that is a number', (record) => ({ ...record, messageId: 42 })],
    ['a messageId that is an object', (record) => ({ ...record, messageId: { id: 'm' } })],
  ];

  it.each(nameless)(
    'dead-letters a record with %s before anything is written, and lists no failure without an id',
    async (_, breakIt) => {
      const { sqs, sent } = acceptingSqs();
      const { open, opened } = untouchable();
      // With a caller id, it could have been admitted: it must not be, as a retry could not name it.
      const odd = breakIt(sqsRecord({ body: 'odd', jobId: mintId() })) as SQSRecord;
      const bad = sqsRecord({ body: 'bad', encoding: 'zip' });
      const response = await handleSqsBatch(sqsEvent([odd, bad]), deps(open, sqs, { dlqUrl: DLQ }));
      expect(response).toEqual({ batchItemFailures: [] });
      expect(opened.count).toBe(0);
      const entries = sent.flatMap((input) => input.Entries ?? []);
      expect(entries.map((entry) => entry.MessageBody)).toEqual(['odd', 'bad']);
      expect(entries[0]?.MessageAttributes?.['emq-source-message-id']).toBeUndefined();
      expect(entries[0]?.MessageAttributes?.['emq-error-code']?.StringValue).toBe(
        'EMQ_INVALID_REQUEST',
      );
      expect(JSON.stringify(lines).length).toBeLessThan(20_000);
    },
  );

  it.each(nameless)(
    'throws before anything is written when a record with %s cannot reach the DLQ',
    async (_, breakIt) => {
      const { open, opened } = untouchable();
      const odd = breakIt(sqsRecord({ body: 'odd' })) as SQSRecord;
      const refusing: DlqSender = {
        send: () => Promise.reject(Object.assign(new Error('down'), { name: 'InternalError' })),
      };
      for (const [sqs, config] of [
        [refusing, { dlqUrl: DLQ }],
        [acceptingSqs().sqs, {}],
      ] as const) {
        await expect(
          handleSqsBatch(sqsEvent([sqsRecord({ body: 'fine' }), odd]), deps(open, sqs, config)),
        ).rejects.toMatchObject({ code: 'EMQ_INVALID_REQUEST' });
      }
      expect(opened.count).toBe(0);
    },
  );

  it('retries a refused record whose attributes its letter could not copy, without throwing', async () => {
    const { sqs, sent } = acceptingSqs();
    const made = sqsRecord({ body: 'x', queue: 'bad queue' });
    const record = {
      ...made,
      messageAttributes: {
        ...made.messageAttributes,
        trace: { ...stringAttribute('t'), dataType: 5 },
      },
    } as unknown as SQSRecord;
    const response = await handleSqsBatch(
      sqsEvent([record]),
      deps(unreachable(), sqs, { dlqUrl: DLQ }),
    );
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: record.messageId }]);
    expect(sent).toEqual([]);
    expect(records(lines)[0]).toMatchObject({
      disposition: 'undelivered',
      code: 'EMQ_INVALID_REQUEST',
      dlqError: 'InvalidMessageAttribute',
    });
  });

  it('dead-letters a record whose body holds a lone surrogate, and writes nothing for it', async () => {
    const { sqs, sent } = acceptingSqs();
    const { open, opened } = untouchable();
    const record = sqsRecord({ body: 'a\ud800' });
    const response = await handleSqsBatch(sqsEvent([record]), deps(open, sqs, { dlqUrl: DLQ }));
    // SQS could not hold its letter either: not sent, the record retried, named by its id.
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: record.messageId }]);
    expect(opened.count).toBe(0);
    expect(sent).toEqual([]);
    expect(records(lines)[0]).toMatchObject({
      code: 'EMQ_INVALID_REQUEST',
      dlqError: 'InvalidMessageContents',
    });
  });

  it('names a record by the text it sent as its messageId, and copies only a bounded one', async () => {
    const { sqs, sent } = acceptingSqs();
    const long = { ...sqsRecord({ body: 'x', encoding: 'zip' }), messageId: 'm'.repeat(100_000) };
    const empty = { ...sqsRecord({ body: 'y' }), messageId: '' };
    const response = await handleSqsBatch(
      sqsEvent([long, empty]),
      deps(unreachable(), sqs, { dlqUrl: DLQ }),
    );
    // The empty one was keyed by nothing: refused, as its own fault, and dead-lettered.
    expect(response.batchItemFailures).toEqual([]);
    const entries = sent.flatMap((input) => input.Entries ?? []);
    expect(entries.map((entry) => entry.MessageBody)).toEqual(['x', 'y']);
    for (const entry of entries) {
      expect(entry.MessageAttributes?.['emq-source-message-id']).toBeUndefined();
    }
  });

  it('answers by its deadline when the DLQ does not: the letter is not delivered, its record comes back', async () => {
    const silent: DlqSender = { send: () => new Promise(() => {}) };
    const record = sqsRecord({ body: 'x', encoding: 'zip' });
    const response = await handleSqsBatch(sqsEvent([record]), {
      ...deps(unreachable(), silent, { dlqUrl: DLQ }),
      deadlineMs: Date.now() + 200,
    });
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: record.messageId }]);
    expect(records(lines)[0]).toMatchObject({
      disposition: 'undelivered',
      dlqError: 'DeadlineReached',
    });
  });

  it('sends no letter once the batch is due', async () => {
    const { sqs, sent } = acceptingSqs();
    const record = sqsRecord({ body: 'x', encoding: 'zip' });
    const response = await handleSqsBatch(sqsEvent([record]), {
      ...deps(unreachable(), sqs, { dlqUrl: DLQ }),
      deadlineMs: Date.now() - 1,
    });
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: record.messageId }]);
    expect(sent).toEqual([]);
  });
});
