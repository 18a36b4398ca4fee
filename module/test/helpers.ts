// Helpers for the module's own tests: raw commands on real servers, no core in between, so
// these tests pin the module's behaviour whatever the host does with it.
import { createHash } from 'node:crypto';
import type { Valkey } from 'iovalkey';
import { expect } from 'vitest';

export const DEFAULT_TTL_MS = 3_600_000;

/** The record key's hash part: base64url(sha256(`<namespace>:<key>`)), 43 characters. */
export function dedupeHash(key: string, namespace = 'http'): string {
  return createHash('sha256').update(`${namespace}:${key}`).digest('base64url');
}

export interface AdmitKeys {
  readonly row: string;
  readonly pending: string;
  readonly dedupe: string;
}

/** The three keys of an admission of `id` into `queue` under idempotency key `key`. */
export function admitKeys(queue: string, id: string, key: string): AdmitKeys {
  return {
    row: `emq:{${queue}}:job:${id}`,
    pending: `emq:{${queue}}:pending`,
    dedupe: `emq:{${queue}}:dedupe:${dedupeHash(key)}`,
  };
}

export type Payload = string | Buffer;

export function admit(
  client: Valkey,
  queue: string,
  id: string,
  key: string,
  payload: Payload,
  ttlMs: number | string = DEFAULT_TTL_MS,
): Promise<unknown> {
  const keys = admitKeys(queue, id, key);
  return client.call(
    'EMQ.ADMIT',
    '3',
    keys.row,
    keys.pending,
    keys.dedupe,
    id,
    payload,
    String(ttlMs),
  );
}

export function enqueue(
  client: Valkey,
  queue: string,
  id: string,
  payload: Payload,
): Promise<unknown> {
  return client.call(
    'EMQ.ENQUEUE',
    '2',
    `emq:{${queue}}:job:${id}`,
    `emq:{${queue}}:pending`,
    id,
    payload,
  );
}

/**
 * Every key of the node with its DUMP and absolute expiry (PEXPIRETIME, stable over time,
 * unlike PTTL): equal snapshots mean the dataset is byte-for-byte what it was.
 */
export async function snapshot(client: Valkey): Promise<Map<string, string>> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await client.scan(cursor, 'COUNT', 1000);
    cursor = next;
    keys.push(...batch);
  } while (cursor !== '0');
  const entries = await Promise.all(
    keys.sort().map(async (key) => {
      try {
        const dump = await client.dumpBuffer(key);
        const expiry = await client.call('PEXPIRETIME', key);
        return [key, `${dump?.toString('hex') ?? 'gone'} @${String(expiry)}`] as const;
      } catch (error) {
        // A cluster node's own fence copy in a slot it does not serve: only EMQ.WIRE reads it.
        if (!(key === '{emq}:version' && String(error).includes('MOVED'))) throw error;
        return [key, `node copy ${JSON.stringify(await client.call('EMQ.WIRE'))}`] as const;
      }
    }),
  );
  return new Map(entries);
}

/** The error text of a refused command (fails the test if it was not refused). */
export async function refusalOf(call: Promise<unknown>): Promise<string> {
  try {
    const reply = await call;
    throw new Error(`expected a refusal, got ${JSON.stringify(reply)}`);
  } catch (error) {
    if (error instanceof Error && error.message.startsWith('expected a refusal')) throw error;
    return error instanceof Error ? error.message : String(error);
  }
}

/** Runs `act` and expects every key of `client`'s node to be exactly as before. */
export async function expectUnchanged<T>(client: Valkey, act: () => Promise<T>): Promise<T> {
  const before = await snapshot(client);
  const result = await act();
  expect(await snapshot(client)).toEqual(before);
  return result;
}

/** A valid JOB id for test n (the server checks only the JOB prefix; the shape is the host's). */
export function jobId(n: number): string {
  return `JOB${n.toString(36).padStart(11, '0')}`;
}
