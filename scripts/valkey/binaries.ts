/**
 * Which valkey-server and valkey-cli every launcher runs: the test harness, the bench and the
 * local stack. EMQ_VALKEY_BIN names a directory holding both (for example the one
 * `bash scripts/install-valkey.sh --version 9.1 --print-path` prints); unset, they come from
 * PATH. This is the one place that variable is read: it picks a tool for the developer's
 * machine, not a setting of the product, so it is not part of src/settings/config.ts.
 */
import { join } from 'node:path';

export type ValkeyTool = 'valkey-server' | 'valkey-cli';

// Read once, when this file loads: tests clear every EMQ_* variable between scenarios
// (clearEmqEnv), and a server restarted after that must still be the one the run chose, not
// PATH's (a 9.1 node restarted as 8.0.1 cannot read its own data).
const BIN_DIR = process.env.EMQ_VALKEY_BIN?.trim();

/** The directory of the Valkey to run, or undefined for PATH (the default). */
export function valkeyBinDir(): string | undefined {
  return BIN_DIR === undefined || BIN_DIR === '' ? undefined : BIN_DIR;
}

/** The command to spawn for `tool`: `<EMQ_VALKEY_BIN>/<tool>`, else the bare name (PATH). */
export function valkeyBinary(tool: ValkeyTool): string {
  const dir = valkeyBinDir();
  return dir === undefined ? tool : join(dir, tool);
}
