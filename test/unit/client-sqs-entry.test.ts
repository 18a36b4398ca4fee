// sqsEntry's SendMessageBatch entries (README.md, "The SQS face" attributes), and sendJobs's
// batching and its retry of only the entries SQS reports failed on its side. SQS runs in the
// integration tests (fauxqs); the one answer it cannot be made to give, an entry failed on SQS's
// side, comes here from a stand-in client answering in SendMessageBatch's exact shape.
import type { SQSClient } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { EmqClientError, mintId, sendJobs, sqsEntry } from '../../client/index.js';

describe('sqsEntry', () => {
  it('names the queue and a minted job id, and uses the id as the entry id', () => {
    const entry = sqsEntry({ queue: 'orders', payload: 'hello' });
    expect(entry.Id).toMatch(/^JOB[0-9A-Za-z]{11}$/);
    expect(entry).toEqual({
      Id: entry.Id,
      MessageBody: 'hello',
      MessageAttributes: {
        'emq-job-id': { DataType: 'String', StringValue: entry.Id },
        'emq-queue': { DataType: 'String', StringValue: 'orders' },
      },
    });
    expect(sqsEntry({ payload: 'x' }).Id).not.toBe(entry.Id);
  });

  it('sends bytes as base64 with emq-encoding, and takes text that is already base64', () => {
    const id = mintId();
    const bytes = sqsEntry({ payload: Uint8Array.from([0, 255]), id });
    expect(bytes.MessageBody).toBe('AP8=');
    expect(bytes.MessageAttributes?.['emq-encoding']).toEqual({
      DataType: 'String',
      StringValue: 'base64',
    });
    expect(bytes.MessageAttributes?.['emq-queue']).toBeUndefined();
    expect(sqsEntry({ payload: 'AP8=', encoding: 'base64', id })).toEqual(bytes);
  });

  it('fills the FIFO fields when a group is given, deduplicating by the job id', () => {
    const id = mintId();
    expect(sqsEntry({ payload: 'x', id, groupId: 'g' })).toMatchObject({
      MessageGroupId: 'g',
      MessageDeduplicationId: id,
    });
    expect(
      sqsEntry({ payload: 'x', id, groupId: 'g', deduplicationId: 'd' }).MessageDeduplicationId,
    ).toBe('d');
  });

  it.each([
    [{ payload: 'x', queue: 'a:b' }, 'EMQ_INVALID_QUEUE'],
    [{ payload: 'x', id: 'JOB!' }, 'EMQ_INVALID_ID'],
    [{ payload: 'not base64!', encoding: 'base64' as const }, 'EMQ_INVALID_REQUEST'],
  ])('refuses %j before any I/O', (job, code) => {
    expect(() => sqsEntry(job)).toThrow(EmqClientError);
    expect(() => sqsEntry(job)).toThrow(expect.objectContaining({ code }));
  });
});

type Input = { Entries: { Id: string }[] };

/** A stand-in SQSClient: `answer` gets each SendMessageBatch input, every call is recorded. */
function standIn(answer: (input: Input, call: number) => unknown) {
  const calls: string[][] = [];
  const client = {
    send: async (command: { input: Input }) => {
      calls.push(command.input.Entries.map((entry) => entry.Id));
      return answer(command.input, calls.length);
    },
  } as unknown as SQSClient;
  return { client, calls };
}

const ok = (ids: readonly string[]) =>
  ids.map((Id) => ({ Id, MessageId: `m-${Id}`, MD5OfMessageBody: '' }));

describe('sendJobs', () => {
  it('sends again only the entries failed on the side of SQS, and reports entries at fault', async () => {
    const [a, b, c] = [0, 1, 2].map((index) => sqsEntry({ payload: `job ${index}` }));
    if (a === undefined || b === undefined || c === undefined) throw new Error('three entries');
    const { client, calls } = standIn((input, call) =>
      call === 1
        ? {
            Successful: ok([a.Id]),
            Failed: [
              { Id: b.Id, Code: 'InternalError', SenderFault: false },
              { Id: c.Id, Code: 'InvalidMessageContents', Message: 'bad', SenderFault: true },
            ],
          }
        : { Successful: ok(input.Entries.map((entry) => entry.Id)), Failed: [] },
    );
    const result = await sendJobs(client, 'https://queue', [a, b, c], { baseDelayMs: 0 });
    expect(calls).toEqual([[a.Id, b.Id, c.Id], [b.Id]]);
    expect(result.successful.map((sent) => sent.jobId)).toEqual([a.Id, b.Id]);
    expect(result.failed).toEqual([
      { Id: c.Id, Code: 'InvalidMessageContents', Message: 'bad', SenderFault: true, jobId: c.Id },
    ]);
  });

  it('stops after its attempts and reports what is left, a thrown call included', async () => {
    const entry = sqsEntry({ payload: 'x' });
    const { client, calls } = standIn(() => {
      throw Object.assign(new Error('socket hang up'), { name: 'TimeoutError' });
    });
    const result = await sendJobs(client, 'https://queue', [entry], {
      attempts: 2,
      baseDelayMs: 0,
    });
    expect(calls).toHaveLength(2);
    expect(result).toEqual({
      successful: [],
      failed: [
        {
          Id: entry.Id,
          Code: 'TimeoutError',
          Message: 'socket hang up',
          SenderFault: false,
          jobId: entry.Id,
        },
      ],
    });
  });

  it('refuses an entry given twice before sending anything', async () => {
    const entry = sqsEntry({ payload: 'x' });
    const { client, calls } = standIn(() => ({}));
    await expect(sendJobs(client, 'https://queue', [entry, entry])).rejects.toMatchObject({
      code: 'EMQ_INVALID_REQUEST',
    });
    expect(calls).toEqual([]);
  });
});
