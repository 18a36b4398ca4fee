/** Installs the wire identity on the fresh servers, as an operator's `emq fence install` does. */

import { install } from '../../src/connection/fence.js';
import type { FamilyName } from '../../src/families/family.js';
import { connect, loadConfig } from '../../src/index.js';

export interface FenceInstalled {
  readonly wire: string;
  /** The family the HTTP function will use: native, with the module loaded. */
  readonly family: FamilyName;
}

export async function installLocalFence(
  env: Readonly<Record<string, string | undefined>>,
): Promise<FenceInstalled> {
  const connection = await connect({ ...loadConfig(env), checkFence: false });
  try {
    const readings = await install(connection);
    const bad = readings.find((reading) => !reading.ok);
    if (bad !== undefined) {
      throw new Error(
        `The wire identity did not take on ${bad.node}: it holds ${bad.value ?? 'nothing'}.`,
      );
    }
    return { wire: connection.config.wire, family: connection.family.name };
  } finally {
    await connection.close();
  }
}
