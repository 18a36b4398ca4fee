/** Makes sure Valkey 8 is installed, through the same script CI uses. */
import { spawn } from 'node:child_process';
import { valkeyBinDir } from '../valkey/binaries.js';

/**
 * Runs scripts/install-valkey.sh: it returns at once when Valkey 8 is there, installs it as
 * root on Debian or Ubuntu or with Homebrew, and otherwise prints the exact command and fails.
 */
export function ensureValkey(script: string): Promise<boolean> {
  // EMQ_VALKEY_BIN names a Valkey someone installed on purpose (e.g. 9.1): use it as it is.
  if (valkeyBinDir() !== undefined) return Promise.resolve(true);
  return new Promise((resolve) => {
    const child = spawn('bash', [script], { stdio: ['ignore', 'inherit', 'inherit'] });
    child.once('error', () => resolve(false));
    child.once('exit', (code) => resolve(code === 0));
  });
}
