// The calls of docs/wire.md as raw commands, per family, built here from the contract
// alone (not from the core, which is rewritten in parallel): the ACL tests send exactly
// what a host sends, as the user the stack deploys.
import { createHash, randomBytes } from 'node:crypto';
import type { Valkey } from 'iovalkey';
import { LIBRARY_SOURCE } from '../../src/families/library.js';
import type { ServerHandle } from '../support/servers.js';
import type { Family } from './acl-setup.js';

export const FENCE_KEY = '{emq}:version';
export const WIRE = '1';
/** A record's life in the calls below: long enough never to expire during a test. */
export const TTL_MS = '3600000';

/** The script family's text: the library with its first line (`#!lua name=emq`) blanked. */
export const SCRIPT_SOURCE = LIBRARY_SOURCE.replace(/^#!lua[^\n]*/, '');
/** EVALSHA's <sha>: the SHA-1 of that text, as SCRIPT LOAD answers it. */
export const SCRIPT_SHA = createHash('sha1').update(SCRIPT_SOURCE).digest('hex');

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** A job id of the right shape (`JOB` + 11 base62); the server checks only the prefix. */
export function jobId(): string {
  return `JOB${[...randomBytes(11)].map((byte) => BASE62[byte % 62]).join('')}`;
}

const base64url = (bytes: Buffer) => bytes.toString('base64url');

/** `h` of an idempotency key: base64url(SHA-256(`<namespace>:<key>`)), 43 characters. */
export function recordHash(namespace: string, key: string): string {
  return base64url(createHash('sha256').update(`${namespace}:${key}`).digest());
}

/** The payload digest: base64url of the first 12 bytes of its SHA-256, 16 characters. */
export function payloadDigest(payload: string): string {
  return base64url(createHash('sha256').update(payload).digest().subarray(0, 12));
}

export const keysOf = (queue: string) => ({
  pending: `emq:{${queue}}:pending`,
  slots: [0, 1, 2, 3].map((slot) => `emq:{${queue}}:dedupe:${slot}`),
  row: (id: string) => `emq:{${queue}}:job:${id}`,
});

export interface Admission {
  readonly idSource: 'm' | 'c';
  readonly id: string;
  /** The idempotency key, in namespace `http` (a minted proposal) or `id` (a caller's id). */
  readonly key: string;
  readonly payload: string;
}

/** A call's keys and arguments after the call name, as every family takes them. */
export interface RawCall {
  readonly keys: readonly string[];
  readonly args: readonly string[];
}

/** `admit` of docs/wire.md: n admissions of one queue in one call. */
export function admitCall(
  queue: string,
  admissions: readonly Admission[],
  ttlMs = TTL_MS,
): RawCall {
  const k = keysOf(queue);
  // The claim: id source, payload digest, then the record field (h's first 22 characters).
  const claimOf = (a: Admission) =>
    `${a.idSource}${payloadDigest(a.payload)}${recordHash(a.idSource === 'c' ? 'id' : 'http', a.key).slice(0, 22)}`;
  return {
    keys: [k.pending, ...k.slots, ...admissions.map((a) => k.row(a.id))],
    args: [WIRE, ttlMs, ...admissions.flatMap((a) => [claimOf(a), a.payload])],
  };
}

export function enqueueCall(queue: string, id: string, payload: string): RawCall {
  const k = keysOf(queue);
  return { keys: [k.row(id), k.pending], args: [id, payload] };
}

/** The command a family sends for a library call (`admit`, `enqueue`, `version`, `purge`). */
export function command(family: Family, name: string, call: RawCall): string[] {
  const count = String(call.keys.length);
  switch (family) {
    case 'function':
      return ['FCALL', `emq_${name}`, count, ...call.keys, ...call.args];
    case 'script':
      return ['EVALSHA', SCRIPT_SHA, count, ...call.keys, name, ...call.args];
    case 'native':
      return [`EMQ.${name.toUpperCase()}`, count, ...call.keys, ...call.args];
  }
}

/** The library check at connect: FCALL_RO of emq_version, or SCRIPT EXISTS of the script. */
export function versionProbe(family: Family): string[] {
  return family === 'script' ? ['SCRIPT', 'EXISTS', SCRIPT_SHA] : ['FCALL_RO', 'emq_version', '0'];
}

/** Sends one raw command; the reply, or the error's text. */
export async function send(client: Valkey, args: readonly string[]): Promise<unknown> {
  const [name = '', ...rest] = args;
  try {
    return await client.call(name, ...rest);
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** A client on one node as `username`; closed by the caller. */
export function clientAs(node: ServerHandle, username: string, password: string): Promise<Valkey> {
  return node.client({ username, password });
}

/** The primary of `primaries` that serves `key` (the others answer MOVED). */
export async function ownerOf(
  primaries: readonly ServerHandle[],
  key: string,
): Promise<ServerHandle> {
  for (const node of primaries) {
    const admin = await node.client();
    try {
      const reply = await send(admin, ['TYPE', key]);
      if (typeof reply !== 'string' || !reply.startsWith('MOVED')) return node;
    } finally {
      admin.disconnect();
    }
  }
  throw new Error(`no primary serves ${key}`);
}
