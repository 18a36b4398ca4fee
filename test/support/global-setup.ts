import { valkeyBinDir } from '../../scripts/valkey/binaries.js';
import { valkeyVersionLine } from '../../scripts/valkey/cli.js';

const MIN_MAJOR = 8;

// Exact steps, because the first thing a new machine meets is this message.
const INSTALL_HELP = `Install Valkey ${MIN_MAJOR} or newer (valkey-server and valkey-cli):
  Debian 12 (bookworm), as root:  bash scripts/install-valkey.sh
    (Valkey 8.0 from bookworm-backports; --version 9.1 --print-path installs 9.1.2 into a
    private prefix and prints the directory to put in EMQ_VALKEY_BIN)
  macOS: brew install valkey`;

function source(): string {
  const dir = valkeyBinDir();
  return dir === undefined ? 'PATH' : `EMQ_VALKEY_BIN=${dir}`;
}

async function versionOf(tool: 'valkey-server' | 'valkey-cli'): Promise<string> {
  try {
    return await valkeyVersionLine(tool);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(
      `The integration tests need ${tool} (from ${source()}), which could not be run (${reason}).\n${INSTALL_HELP}`,
    );
  }
}

/**
 * Fails the run up front, with install steps, instead of in every test that starts a server,
 * and says which Valkey the run uses: the version matrix runs the suite on more than one.
 */
export async function setup(): Promise<void> {
  const server = await versionOf('valkey-server');
  await versionOf('valkey-cli');
  const version = /\bv=(\d+\.\d+\.\d+)/.exec(server)?.[1];
  const major = Number(version?.split('.')[0]);
  if (!(major >= MIN_MAJOR)) {
    throw new Error(
      `The integration tests need valkey-server ${MIN_MAJOR} or newer; found (from ${source()}): ${server}\n${INSTALL_HELP}`,
    );
  }
  console.log(`Valkey ${version} (from ${source()})`);
}
