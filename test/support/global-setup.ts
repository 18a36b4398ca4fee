import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);
const MIN_MAJOR = 8;

// Exact steps, because the first thing a new machine meets is this message. The mirror is
// read from the machine's own Debian sources so the line works behind any mirror.
const INSTALL_HELP = `Install Valkey ${MIN_MAJOR} or newer (valkey-server and valkey-cli):
  Debian 12 (bookworm): it is in bookworm-backports, not in plain bookworm. As root:
    printf 'Types: deb\\nURIs: %s\\nSuites: bookworm-backports\\nComponents: main\\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\\n' \\
      "$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources)" \\
      > /etc/apt/sources.list.d/bookworm-backports.sources
    apt-get update
    apt-get install -y -t bookworm-backports valkey-server valkey-tools
  macOS: brew install valkey`;

async function versionOf(command: string): Promise<string> {
  try {
    const { stdout } = await run(command, ['--version'], { timeout: 10_000 });
    return stdout.trim();
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(
      `The integration tests need ${command}, which could not be run (${reason}).\n${INSTALL_HELP}`,
    );
  }
}

/** Fails the run up front, with install steps, instead of in every test that starts a server. */
export async function setup(): Promise<void> {
  const server = await versionOf('valkey-server');
  await versionOf('valkey-cli');
  const major = Number(/\bv=(\d+)\./.exec(server)?.[1]);
  if (!(major >= MIN_MAJOR)) {
    throw new Error(
      `The integration tests need valkey-server ${MIN_MAJOR} or newer; found: ${server}\n${INSTALL_HELP}`,
    );
  }
}
