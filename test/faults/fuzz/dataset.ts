/**
 * The fuzzed server's dataset through one long-lived admin connection: its DEBUG DIGEST after
 * every event, and a reset now and then. DEBUG DIGEST hashes every key, so its cost grows with
 * the dataset; a run resets it every few hundred events to keep each read cheap.
 */
import type { Valkey } from 'iovalkey';
import type { ServerHandle } from '../../support/servers.js';
import { settings } from '../driver/settings.js';

export interface Dataset {
  /** The dataset's digest now; equal digests mean a byte-for-byte equal dataset. */
  digest(): Promise<string>;
  /** Empties the dataset and installs the wire identity again (the module's own). */
  reset(): Promise<void>;
}

export async function datasetOf(server: ServerHandle): Promise<Dataset> {
  const admin: Valkey = await server.client();
  return {
    async digest() {
      const digest = await admin.call('DEBUG', 'DIGEST');
      if (typeof digest !== 'string') throw new Error('DEBUG DIGEST did not answer a string');
      return digest;
    },
    async reset() {
      await admin.flushall();
      await admin.call('EMQ.WIRE.INSTALL');
    },
  };
}

/** fast-check parameters that replay a failed run when EMQ_FUZZ_SEED is set. */
export function fuzzSeed(): { seed?: number } {
  return settings.fuzzSeed === undefined ? {} : { seed: settings.fuzzSeed };
}
