/**
 * The valkey-server arguments of one node of a target: the harness's defaults (loopback,
 * nothing saved behind a test's back), a unix socket for the harness alone, TLS-only client,
 * replication and cluster-bus ports where the profile says so, the announced port of the
 * node's proxy, the ACL file, the renames and the profile's settings, in that order (a later
 * setting wins).
 */
import { join } from 'node:path';
import { moduleArgs } from '../module.js';
import { LOOPBACK } from '../ports.js';
import type { ArgsFor } from '../server-args.js';
import type { Auth } from '../types.js';
import type { TargetCertificates } from './certs.js';
import type { ResolvedProfile } from './resolve-profile.js';

/** The harness's socket file, inside each node's data dir. */
export const NODE_SOCKET = 'harness.sock';
const DEFAULT_NODE_TIMEOUT_MS = 2_000;

export interface NodeArgsInput {
  readonly resolved: ResolvedProfile;
  readonly certificates: TargetCertificates | undefined;
  readonly aclFile: string;
  /** The harness's user: replicas authenticate as it. */
  readonly admin: Required<Auth>;
  /** The port of this node's proxy, which the node announces to clients. */
  readonly proxyPort: number;
  readonly nodeTimeoutMs: number | undefined;
  readonly extraArgs: readonly string[];
}

export function nodeArgs(input: NodeArgsInput): ArgsFor {
  const { resolved, certificates } = input;
  return (port, dir) => [
    ...listen(port, certificates, resolved.cluster),
    ...['--unixsocket', join(dir, NODE_SOCKET), '--unixsocketperm', '700'],
    ...['--dir', dir, '--bind', LOOPBACK, '--protected-mode', 'no', '--daemonize', 'no'],
    ...['--save', '', '--appendonly', 'no', '--repl-diskless-sync-delay', '0'],
    ...['--enable-debug-command', 'yes'],
    ...(resolved.cluster ? clusterArgs(dir, input, certificates !== undefined) : []),
    ...moduleArgs(resolved.profile.module),
    ...['--aclfile', input.aclFile],
    ...['--masteruser', input.admin.username, '--masterauth', input.admin.password],
    ...resolved.renames.flatMap(([from, to]) => ['--rename-command', from, to]),
    ...resolved.settings.flatMap(([name, value]) => [`--${name}`, value]),
    ...input.extraArgs,
  ];
}

function listen(
  port: number,
  certificates: TargetCertificates | undefined,
  cluster: boolean,
): string[] {
  if (certificates === undefined) return ['--port', String(port)];
  return [
    ...['--port', '0', '--tls-port', String(port)],
    ...['--tls-cert-file', certificates.certFile, '--tls-key-file', certificates.keyFile],
    ...['--tls-ca-cert-file', certificates.caFile, '--tls-auth-clients', 'no'],
    ...['--tls-replication', 'yes', '--tls-cluster', cluster ? 'yes' : 'no'],
  ];
}

function clusterArgs(dir: string, input: NodeArgsInput, tls: boolean): string[] {
  const announce = String(input.proxyPort);
  return [
    ...['--cluster-enabled', 'yes', '--cluster-config-file', join(dir, 'nodes.conf')],
    ...['--cluster-node-timeout', String(input.nodeTimeoutMs ?? DEFAULT_NODE_TIMEOUT_MS)],
    // Clients, MOVED replies and replicas all go to the proxy; the bus keeps the node's own port.
    ...['--cluster-announce-ip', LOOPBACK, '--cluster-announce-port', announce],
    ...(tls ? ['--cluster-announce-tls-port', announce] : []),
  ];
}
