/**
 * The commands a valkey-server knows, read from COMMAND INFO: names and `command|subcommand`
 * forms, and which commands are containers (take a subcommand). A profile's renames are made
 * from what this binary knows (a command AWS lists may not exist in 8.0.1, COMMANDLOG say), so
 * a bare server of the run's binary is asked once per process.
 */
import type { Valkey } from 'iovalkey';
import { ValkeyServer } from '../server.js';

export interface KnownCommands {
  /** Every command and `command|subcommand`, lowercase. */
  readonly names: ReadonlySet<string>;
  /** Commands that take a subcommand, lowercase. */
  readonly containers: ReadonlySet<string>;
}

const SOCKET = 'harness.sock';
let bare: Promise<KnownCommands> | undefined;

/** What the run's valkey-server knows with no module loaded and nothing renamed. */
export function bareCommands(): Promise<KnownCommands> {
  bare ??= readBare();
  return bare;
}

async function readBare(): Promise<KnownCommands> {
  const server = await ValkeyServer.start({
    argsFor: (_port, dir) => [
      ...['--port', '0', '--unixsocket', `${dir}/${SOCKET}`, '--unixsocketperm', '700'],
      ...['--dir', dir, '--save', '', '--appendonly', 'no', '--daemonize', 'no'],
    ],
    auth: undefined,
    clusterBus: false,
    startTimeoutMs: undefined,
    socket: SOCKET,
  });
  try {
    return await server.probe(commandsOf);
  } finally {
    await server.stop();
  }
}

/** Reads COMMAND INFO (every command) on `connection`. */
export async function commandsOf(connection: Valkey): Promise<KnownCommands> {
  const reply = await connection.call('COMMAND', 'INFO');
  if (!Array.isArray(reply)) throw new Error('COMMAND INFO did not answer an array');
  const names = new Set<string>();
  const containers = new Set<string>();
  for (const entry of reply as unknown[]) {
    if (!Array.isArray(entry) || typeof entry[0] !== 'string') continue;
    const name = entry[0].toLowerCase();
    names.add(name);
    const subcommands = entry[9];
    if (!Array.isArray(subcommands) || subcommands.length === 0) continue;
    containers.add(name);
    for (const sub of subcommands as unknown[]) {
      if (Array.isArray(sub) && typeof sub[0] === 'string') names.add(sub[0].toLowerCase());
    }
  }
  return { names, containers };
}
