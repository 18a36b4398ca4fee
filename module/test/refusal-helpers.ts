// The refusal tests' shared server state and steps (refusals.test.ts): a standalone server with the module, the fence reinstalled before each test.
import type { Valkey } from 'iovalkey';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { type ServerHandle, startStandalone } from '../../test/support/servers.js';
import {
  type Admission,
  admitArgs,
  admitKeys,
  expectUnchanged,
  recordHash,
  refusalOf,
  slotKeys,
} from './helpers.js';

let server: ServerHandle;
/** The test file's client (set by useRefusalServer). */
export let client: Valkey;

/** Starts the file's server and reinstalls the fence before each test. */
export function useRefusalServer(): void {
  beforeAll(async () => {
    server = await startStandalone({ module: true });
    client = await server.client();
  });
  afterAll(() => server.stop());
  beforeEach(async () => {
    await client.call('EMQ.WIRE.INSTALL');
  });
}

export const SHAPE = /^ERR wrong number of arguments/;
export const TTL =
  /^ERR wrong number of arguments for 'emq\.admit' command: ttl-ms must be a positive integer$/;
export const LAYOUT = /^EMQLAYOUT /;
export const WIRE = /^EMQWIRE /;
export const KIND = /^EMQKIND job id must be JOB-namespaced$/;
export const WRONGTYPE = /^WRONGTYPE /;
export const PAUSED = /^ERR EMQ write-paused$/;
export const WRONGTYPE_ELEMENT = /^ReplyError: WRONGTYPE /;

/** Runs `args` inside `MULTI; CLIENT PAUSE 3000 WRITE; ...; EXEC`, then unpauses. */
export async function whilePaused(args: readonly (string | Buffer)[]): Promise<unknown> {
  const [name = '', ...rest] = args;
  try {
    const replies = await client
      .multi()
      .call('CLIENT', 'PAUSE', '3000', 'WRITE')
      .call(String(name), ...rest)
      .exec();
    const [error, reply] = replies?.[1] ?? [new Error('EXEC answered nothing'), undefined];
    if (error) throw error;
    return reply;
  } finally {
    await client.call('CLIENT', 'UNPAUSE');
  }
}

/** A fence in a broken state for the duration of one refusal (restored by beforeEach). */
export async function breakFence(how: 'missing' | 'other' | 'ttl' | 'hash'): Promise<void> {
  await client.del('{emq}:version');
  if (how === 'other') await client.set('{emq}:version', '2');
  if (how === 'ttl') await client.set('{emq}:version', '1', 'PX', 600_000);
  if (how === 'hash') await client.hset('{emq}:version', 'v', '1');
}

/** State that breaks steps 5-7 at once: a record and a row, pending of the wrong type. */
export async function laterStepsBroken(queue: string, id: string, key: string): Promise<void> {
  const keys = admitKeys(queue, id);
  await client.set(keys.pending, 'not a zset');
  const expiry = Date.now() + 600_000;
  const record = `${id}:${'A'.repeat(16)}:${expiry}`;
  await client.hset(
    slotKeys(queue)[0] as string,
    recordHash(key).slice(0, 22),
    record,
    '~',
    expiry,
  );
  await client.hset(keys.row, 'state', 'pending', 'attempts', '0', 'payload', 'other');
}

export async function refused(args: readonly (string | Buffer)[], paused = false): Promise<string> {
  const [name = '', ...rest] = args;
  return expectUnchanged(client, () =>
    refusalOf(paused ? whilePaused(args) : client.call(String(name), ...rest)),
  );
}

/** The reply of a call that answers (no call-level refusal), with the dataset unchanged. */
export async function unchanged(
  args: readonly (string | Buffer)[],
  paused = false,
): Promise<unknown[]> {
  const [name = '', ...rest] = args;
  return (await expectUnchanged(client, () =>
    paused ? whilePaused(args) : client.call(String(name), ...rest),
  )) as unknown[];
}

export function admitCall(
  queue: string,
  admissions: readonly Admission[],
  wire = '1',
  ttl = '60000',
) {
  return ['EMQ.ADMIT', ...admitArgs(queue, admissions, { wire, ttlMs: ttl })];
}

export const one = (id: string, key = 'k', more: Partial<Admission> = {}): Admission => ({
  id,
  key,
  payload: 'p',
  ...more,
});
