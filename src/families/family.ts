import type { Command } from 'iovalkey';

/**
 * An id this host minted: a proposal, and on reply `2` it proposes another (docs/wire.md,
 * "The calls").
 */
export const MINTED_ID = 'm';
/**
 * The caller's own id: on reply `2` the call compares the row's payload itself (docs/wire.md,
 * "Idempotency records").
 */
export const CALLER_ID = 'c';
/** Whose id an admission proposes, as the first byte of its claim says it (docs/wire.md). */
export type IdSource = typeof MINTED_ID | typeof CALLER_ID;

/**
 * One admission inside an admit call (docs/wire.md): its row, its key's record field, its values.
 */
export interface AdmissionArgs {
  /** `emq:{q}:job:<id>`: the proposed row (the call reads the id from it). */
  readonly rowKey: string;
  readonly idSource: IdSource;
  /** The payload's digest: 16 base64url characters. */
  readonly digest: string;
  /** The key's record field: its `h`'s first 22 characters. */
  readonly field: string;
  readonly payload: Buffer;
}

/** One admit call: several admissions of one queue (docs/wire.md, "admit"). */
export interface AdmitCall {
  readonly pendingKey: string;
  /** The queue's four record slots. */
  readonly recordSlotKeys: readonly string[];
  /** The wire identity this host expects. */
  readonly wire: string;
  /** A new record's life in ms, as the decimal string the call sends. */
  readonly ttlMs: string;
  readonly admissions: readonly AdmissionArgs[];
}

/**
 * `native`: the module's commands; `function`: FCALL of the `emq` library; `script`: the same
 * Lua by EVALSHA (ElastiCache Serverless, which has no FUNCTION).
 */
export type FamilyName = 'native' | 'function' | 'script';

/**
 * A family (docs/wire.md, "The calls"): the set of server calls a host admits with, one of three.
 * `admit` returns the command to send, which names its keys (so
 * the cluster client routes it by slot) and encodes itself as one RESP buffer. The reply is
 * the same on all three: an array of [status, id] or errors. The seeds' ENQUEUE call (docs/wire.md,
 * "The calls") is the module's and the library's, for other hosts: this host never sends it.
 */
export interface Family {
  readonly name: FamilyName;
  admit(call: AdmitCall): Command;
}

/** Most admissions in one call: an EVALSHA of n takes 11 + 3n arguments (Serverless: 3,999). */
export const MAX_ADMISSIONS_PER_CALL = 500;

/** The keys and the arguments of an admit call, in wire order (docs/wire.md). */
export function admitParts(call: AdmitCall): {
  keys: (string | Buffer)[];
  args: (string | Buffer)[];
} {
  const keys: (string | Buffer)[] = [call.pendingKey, ...call.recordSlotKeys];
  const args: (string | Buffer)[] = [call.wire, call.ttlMs];
  for (const admission of call.admissions) {
    keys.push(admission.rowKey);
    // The claim: id source, digest and field in one argument (one length prefix, one Lua string).
    args.push(admission.idSource + admission.digest + admission.field, admission.payload);
  }
  return { keys, args };
}
