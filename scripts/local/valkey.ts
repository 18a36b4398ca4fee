/**
 * Starts the local Valkey: one server, or three primaries formed into a cluster, each loading
 * the EchoMQ module, keeping its data (append-only file) and log under the data folder.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Child, Children } from '../../cli/runtime/children.js';
import { valkeyBinary } from '../valkey/binaries.js';
import { waitUntilServing } from '../valkey/ready.js';
import { chooseValkeyPorts, LOOPBACK, portRun } from './ports.js';
import { ask, createCluster, waitFor } from './valkey-cli.js';

export interface ValkeyOptions {
  readonly dataDir: string;
  readonly cluster: boolean;
  /** See StackOptions.valkeyPort. */
  readonly port: number | undefined;
  /** The built module, loaded by every node. */
  readonly modulePath: string;
  /** The wire identity the module is loaded with (EMQ_WIRE). */
  readonly wire: string;
}

export interface RunningValkey {
  readonly urls: string[];
  readonly cluster: boolean;
  readonly nodes: readonly { readonly port: number; readonly pid: number; readonly log: string }[];
  /** How the ports were chosen: asked, the defaults, free ones, or kept from the folder's cluster. */
  readonly portsChosen: 'asked' | 'default' | 'free' | 'kept';
  /** True when a cluster was formed now rather than restarted from its folder. */
  readonly formed: boolean;
}

const START_TIMEOUT_MS = 30_000;

export async function startValkey(
  children: Children,
  options: ValkeyOptions,
): Promise<RunningValkey> {
  return options.cluster ? startCluster(children, options) : startStandalone(children, options);
}

async function startStandalone(children: Children, options: ValkeyOptions): Promise<RunningValkey> {
  const asked = options.port === undefined ? undefined : [options.port];
  const { ports, chosen } = await chooseValkeyPorts(asked, [6379], false);
  const [port = 6379] = ports;
  const node = await startNode(children, options, port, join(options.dataDir, 'standalone'), []);
  return { urls: [urlOf(port)], cluster: false, nodes: [node], portsChosen: chosen, formed: false };
}

/**
 * A cluster's nodes remember each other (nodes.conf) by port, so a restart reuses the ports
 * the folder recorded; a new folder gets new ports and a freshly formed cluster.
 */
async function startCluster(children: Children, options: ValkeyOptions): Promise<RunningValkey> {
  const root = join(options.dataDir, 'cluster');
  const recorded = await recordedPorts(root);
  if (recorded !== undefined && options.port !== undefined && options.port !== recorded[0]) {
    throw new Error(
      `${root} holds a cluster on ports ${recorded.join(', ')}; leave out --valkey-port, or delete that folder for a new cluster.`,
    );
  }
  const asked = recorded ?? (options.port === undefined ? undefined : portRun(options.port, 3));
  const { ports, chosen } = await chooseValkeyPorts(asked, portRun(7000, 3), true);
  const formed = recorded === undefined;
  if (formed) {
    await rm(root, { recursive: true, force: true });
    await mkdir(root, { recursive: true });
  }
  const clusterArgs = [
    '--cluster-enabled',
    'yes',
    '--cluster-config-file',
    'nodes.conf',
    '--cluster-node-timeout',
    '5000',
  ];
  const nodes = [];
  for (const port of ports) {
    nodes.push(await startNode(children, options, port, join(root, String(port)), clusterArgs));
  }
  if (formed) {
    await createCluster(ports);
    await writeFile(join(root, 'ports.json'), `${JSON.stringify(ports)}\n`);
  }
  const alive = children.list();
  for (const port of ports) {
    const gone =
      alive.find((child) => child.name === nodeName(port))?.exited ?? Promise.resolve('gone');
    await waitFor(port, ['CLUSTER', 'INFO'], (reply) => reply.includes('cluster_state:ok'), {
      timeoutMs: START_TIMEOUT_MS,
      gone,
      what: `The cluster node on port ${port}`,
    });
  }
  return {
    urls: ports.map(urlOf),
    cluster: true,
    nodes,
    portsChosen: formed ? chosen : 'kept',
    formed,
  };
}

async function recordedPorts(root: string): Promise<number[] | undefined> {
  try {
    const ports: unknown = JSON.parse(await readFile(join(root, 'ports.json'), 'utf8'));
    if (
      Array.isArray(ports) &&
      ports.length === 3 &&
      ports.every(
        (port) => Number.isInteger(port) && existsSync(join(root, String(port), 'nodes.conf')),
      )
    ) {
      return ports.map(Number);
    }
  } catch {}
  return undefined;
}

async function startNode(
  children: Children,
  options: ValkeyOptions,
  port: number,
  dir: string,
  extra: readonly string[],
): Promise<{ port: number; pid: number; log: string }> {
  await mkdir(dir, { recursive: true });
  const log = join(dir, 'valkey.log');
  const child: Child = await children.start(
    nodeName(port),
    valkeyBinary('valkey-server'),
    [
      '--port',
      String(port),
      '--bind',
      LOOPBACK,
      '--dir',
      dir,
      '--logfile',
      log,
      '--daemonize',
      'no',
      // The append-only file keeps every job across restarts; snapshots would only slow a stop.
      '--appendonly',
      'yes',
      '--save',
      '',
      ...extra,
      '--loadmodule',
      options.modulePath,
      'wire',
      options.wire,
    ],
    { advice: () => `see ${log}` },
  );
  try {
    await waitUntilServing(port, {
      timeoutMs: START_TIMEOUT_MS,
      exited: child.exited,
      what: `valkey-server on port ${port}`,
      pid: child.pid,
    });
  } catch (error) {
    throw new Error(`${error instanceof Error ? error.message : String(error)} See ${log}.`);
  }
  return { port, pid: child.pid, log };
}

function nodeName(port: number): string {
  return `valkey-server:${port}`;
}

function urlOf(port: number): string {
  return `redis://${LOOPBACK}:${port}`;
}

/** The server's version line, e.g. `8.0.1`, for the banner. */
export async function versionOf(port: number): Promise<string> {
  const info = await ask(port, 'INFO', 'server');
  return /valkey_version:(\S+)/.exec(info)?.[1] ?? 'unknown';
}
