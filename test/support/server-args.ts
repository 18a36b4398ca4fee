import { moduleArgs } from './module.js';
import { LOOPBACK } from './ports.js';
import type { LaunchSpec } from './server.js';
import type { Auth, ServerOptions } from './types.js';

export type ArgsFor = (port: number, dir: string) => string[];

// Loopback only, nothing written behind the test's back, DEBUG available for digests.
const DEFAULTS: ReadonlyArray<readonly string[]> = [
  ['--bind', LOOPBACK],
  ['--enable-debug-command', 'yes'],
  ['--save', ''],
  ['--appendonly', 'no'],
  ['--protected-mode', 'no'],
  ['--daemonize', 'no'],
  // Valkey waits 5 s by default for more replicas before a full sync; tests have one at a time.
  ['--repl-diskless-sync-delay', '0'],
];
// The harness must know these to probe, restart and clean up the server.
const OWNED = ['--port', '--dir'];

function serverArgs(port: number, dir: string, extraArgs: readonly string[]): string[] {
  const named = new Set(extraArgs.filter((arg) => arg.startsWith('--')));
  for (const owned of OWNED) {
    if (named.has(owned))
      throw new Error(`${owned} is chosen by the harness; leave it out of extraArgs`);
  }
  const defaults = DEFAULTS.filter(([name]) => name === undefined || !named.has(name)).flat();
  return ['--port', String(port), '--dir', dir, ...defaults, ...extraArgs];
}

/** Combines the defaults, the module, what a topology needs (`harnessArgs`) and the caller's args. */
export function argsFor(options: ServerOptions, harnessArgs: ArgsFor = () => []): ArgsFor {
  const loadModule = moduleArgs(options.module ?? false);
  return (port, dir) =>
    serverArgs(port, dir, [...loadModule, ...harnessArgs(port, dir), ...(options.extraArgs ?? [])]);
}

/** Lets a replica authenticate to its primary with the harness's own credentials. */
export function replicationAuth(auth: Auth | undefined): string[] {
  if (auth === undefined) return [];
  const user = auth.username === undefined ? [] : ['--masteruser', auth.username];
  return [...user, '--masterauth', auth.password];
}

export function launchSpec(
  options: ServerOptions,
  harnessArgs?: ArgsFor,
  extra: { clusterBus?: boolean; port?: number } = {},
): LaunchSpec {
  return {
    argsFor: argsFor(options, harnessArgs),
    auth: options.auth,
    startTimeoutMs: options.startTimeoutMs,
    clusterBus: extra.clusterBus ?? false,
    port: extra.port,
  };
}
