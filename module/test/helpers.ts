// Helpers for the module's own tests: raw commands on real servers, no core in between, so
// these tests pin the module's behaviour whatever the host does with it.
import { createHash } from 'node:crypto';
import type { Valkey } from 'iovalkey';
import { expect } from 'vitest';
import { waitFor } from '../../test/support/wait.js';

export const DEFAULT_TTL_MS = 3_600_000;

/** A key's h: base64url(sha256(`<namespace>:<key>`)), 43 characters; its record field is h's first 22. */
export function recordHash(key: string, namespace = 'http'): string {
  return createHash('sha256').update(`${namespace}:${key}`).digest('base64url');
}

export interface AdmitKeys {
  readonly row: string;
  readonly pending: string;
}

/** The keys of an admission of `id` into `queue`: its row and the pending set. */
export function admitKeys(queue: string, id: string): AdmitKeys {
  return { row: `emq:{${queue}}:job:${id}`, pending: `emq:{${queue}}:pending` };
}

export type Payload = string | Buffer;

/** The queue's four record slots, emq:{q}:dedupe:0 .. :3. */
export function slotKeys(queue: string): string[] {
  return [0, 1, 2, 3].map((s) => `emq:{${queue}}:dedupe:${s}`);
}

/** The host's digest of a payload: base64url of the first 12 bytes of its SHA-256. */
export function payloadDigest(payload: Payload): string {
  return createHash('sha256').update(payload).digest().subarray(0, 12).toString('base64url');
}

/** One admission of a call. */
export interface Admission {
  readonly id: string;
  readonly key: string;
  readonly payload: Payload;
  /** m (minted, the default) or c (the caller's own id). */
  readonly kind?: string;
  /** The namespace of the idempotency key (h = sha256 of `<namespace>:<key>`); http. */
  readonly namespace?: string;
  /** Overrides the digest (default: payloadDigest(payload)). */
  readonly digest?: string;
}

export interface AdmitOptions {
  readonly ttlMs?: number | string;
  readonly wire?: string;
}

/**
 * The arguments of an admit call after the command name (docs/wire.md): numkeys, pending, the
 * four slots, a row per admission, wire, ttl-ms, then claim (kind, digest, field) and payload
 * per admission. The same for EMQ.ADMIT and FCALL emq_admit.
 */
export function admitArgs(
  queue: string,
  admissions: readonly Admission[],
  options: AdmitOptions = {},
): (string | Buffer)[] {
  const keys = admissions.map((a) => admitKeys(queue, a.id).row);
  const args = admissions.flatMap((a) => [
    `${a.kind ?? 'm'}${a.digest ?? payloadDigest(a.payload)}${recordHash(a.key, a.namespace).slice(0, 22)}`,
    a.payload,
  ]);
  return [
    String(5 + admissions.length),
    `emq:{${queue}}:pending`,
    ...slotKeys(queue),
    ...keys,
    options.wire ?? '1',
    String(options.ttlMs ?? DEFAULT_TTL_MS),
    ...args,
  ];
}

/** One EMQ.ADMIT call; resolves to its reply array (errors of admissions as Error elements). */
export function admitMany(
  client: Valkey,
  queue: string,
  admissions: readonly Admission[],
  options: AdmitOptions = {},
): Promise<unknown> {
  return client.call('EMQ.ADMIT', ...admitArgs(queue, admissions, options));
}

/**
 * An EMQ.ADMIT call of one admission; resolves to its one reply [status, id] and rejects with
 * the admission's error (EMQKIND, WRONGTYPE) as with the call's (EMQWIRE, EMQLAYOUT, ...).
 */
export async function admit(
  client: Valkey,
  queue: string,
  id: string,
  key: string,
  payload: Payload,
  ttlMs: number | string = DEFAULT_TTL_MS,
): Promise<unknown> {
  const reply = (await admitMany(client, queue, [{ id, key, payload }], { ttlMs })) as unknown[];
  const [only] = reply;
  if (only instanceof Error) throw only;
  return only;
}

/** The record of `key` in `queue`: the value of field h[0..22] in the first slot holding it. */
export async function recordOf(
  client: Valkey,
  queue: string,
  key: string,
  namespace = 'http',
): Promise<{ slot: number; value: string } | undefined> {
  const field = recordHash(key, namespace).slice(0, 22);
  for (const [slot, name] of slotKeys(queue).entries()) {
    const value = await client.hget(name, field);
    if (value !== null) return { slot, value };
  }
  return undefined;
}

/** Waits until `client`'s clock is at least `margin` ms away from a boundary of `window`. */
export async function awayFromBoundary(
  client: Valkey,
  window: number,
  margin = 2_000,
): Promise<number> {
  let now = 0;
  await waitFor('the clock to leave a window boundary', 2 * margin + 1_000, async () => {
    now = await serverMs(client);
    const into = now % window;
    return into > margin && window - into > margin ? undefined : `${into} ms into the window`;
  });
  return now;
}

/** The server's clock in ms, as the module and the library read it. */
export async function serverMs(client: Valkey): Promise<number> {
  const [seconds, micros] = (await client.call('TIME')) as [string, string];
  return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
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

/**
 * Every key of a node as another server holding the same data would show it: type, OBJECT
 * ENCODING, DEBUG DIGEST-VALUE (order-independent; a hashtable's DUMP follows the server's
 * random hash seed) and absolute expiry. Compare two servers with this, one server with
 * snapshot(). The fence copy's encoding is left out: EMQ.WIRE.INSTALL writes it node-locally
 * through the key API (a raw string) where a replica's SET makes an int.
 */
export async function contents(client: Valkey): Promise<Map<string, string>> {
  const keys = ((await client.keys('*')) as string[]).sort();
  const entries = await Promise.all(
    keys.map(async (key) => {
      const [[digest], type, encoding, expiry] = (await Promise.all([
        client.call('DEBUG', 'DIGEST-VALUE', key),
        client.type(key),
        client.object('ENCODING', key),
        client.call('PEXPIRETIME', key),
      ])) as [[string], string, string, number];
      const shown = key === '{emq}:version' ? 'any' : encoding;
      return [key, `${type} ${shown} ${digest} @${expiry}`] as const;
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

/**
 * Runs `act` and expects every key of `client`'s node to be exactly as before: the same DEBUG
 * DIGEST, and key by key the same DUMP and absolute expiry.
 */
export async function expectUnchanged<T>(client: Valkey, act: () => Promise<T>): Promise<T> {
  // The digest right around `act`: the snapshot's own reads delete an expired key lazily.
  const before = await snapshot(client);
  const digest = await client.call('DEBUG', 'DIGEST');
  const result = await act();
  expect(await client.call('DEBUG', 'DIGEST')).toBe(digest);
  expect(await snapshot(client)).toEqual(before);
  return result;
}

/** A valid JOB id for test n (the server checks only the JOB prefix; the shape is the host's). */
export function jobId(n: number): string {
  return `JOB${n.toString(36).padStart(11, '0')}`;
}
