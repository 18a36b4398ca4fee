/**
 * The fuzzed server's dataset through one long-lived admin connection: its DEBUG DIGEST after
 * every event, the keys an event wrote, and a reset now and then. DEBUG DIGEST hashes every
 * key, so its cost grows with the dataset; a run resets it every few hundred events to keep
 * each read cheap.
 */
import fc from 'fast-check';
import type { Valkey } from 'iovalkey';
import type { ServerHandle } from '../../support/servers.js';
import { settings } from '../driver/settings.js';
import { shortText } from './invariants.js';

export interface Dataset {
  /** The dataset's digest now; equal digests mean a byte-for-byte equal dataset. */
  digest(): Promise<string>;
  /**
   * The keys created, changed or deleted since the previous call (or the last reset): each
   * key's DEBUG DIGEST-VALUE compared with the one seen then. Costs a SCAN of the dataset:
   * call it only when the digest moved.
   */
  written(): Promise<string[]>;
  /** Empties the dataset and installs the wire identity again (the module's own). */
  reset(): Promise<void>;
}

export async function datasetOf(server: ServerHandle): Promise<Dataset> {
  const admin: Valkey = await server.client();
  async function snapshot(): Promise<Map<string, string>> {
    const keys: string[] = [];
    let cursor = '0';
    do {
      const [next, batch] = await admin.scan(cursor, 'COUNT', 1000);
      cursor = next;
      keys.push(...batch);
    } while (cursor !== '0');
    if (keys.length === 0) return new Map();
    const digests = (await admin.call('DEBUG', 'DIGEST-VALUE', ...keys)) as string[];
    return new Map(keys.map((key, at) => [key, String(digests[at])]));
  }

  let seen = await snapshot();
  return {
    async digest() {
      const digest = await admin.call('DEBUG', 'DIGEST');
      if (typeof digest !== 'string') throw new Error('DEBUG DIGEST did not answer a string');
      return digest;
    },
    async written() {
      const now = await snapshot();
      const changed = [...now].filter(([key, value]) => seen.get(key) !== value).map(([k]) => k);
      const deleted = [...seen.keys()].filter((key) => !now.has(key));
      seen = now;
      return [...changed, ...deleted];
    },
    async reset() {
      await admin.flushall();
      await admin.call('EMQ.WIRE.INSTALL');
      seen = await snapshot();
    },
  };
}

/**
 * fast-check parameters for `numRuns` runs: a seed (EMQ_FUZZ_SEED's, else a random one the
 * test prints, so any run replays), and a report whose long runs of one character are cut: a
 * counterexample holding a 1 MiB value would print 1 MiB per failing test.
 */
export function fuzzParameters<Ts>(numRuns: number): fc.Parameters<Ts> & { seed: number } {
  return {
    numRuns,
    seed: settings.fuzzSeed ?? Math.floor(Math.random() * 2 ** 31),
    reporter(details) {
      if (!details.failed) return;
      throw new Error(shortText(fc.defaultReportMessage(details), 6_000), {
        cause: details.errorInstance,
      });
    },
  };
}
