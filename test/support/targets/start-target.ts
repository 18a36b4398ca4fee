/**
 * startTarget(profile, options): a running target of the profile table (profiles.ts), ready
 * for a test. In order: the profile's values are read (the stack's where it decides them);
 * one proxy per node starts listening (its port is what the node announces); the nodes start
 * with the profile's TLS, renames, settings and ACL file; a cluster is formed over the nodes'
 * unix sockets and waited healthy (replicas synced through the proxies); every proxy is shown
 * to forward and, in a cluster, to serve a slot map of proxies only. The command record is
 * then empty: everything in it afterwards came from the test.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePorts, LOOPBACK } from '../ports.js';
import type { ValkeyServer } from '../server.js';
import { startAll } from '../start-all.js';
import { HARNESS_USER, newPassword, type TargetUser, writeAclFile } from './acl-file.js';
import { targetCertificates } from './certs.js';
import { CommandLog } from './command-log.js';
import { formCluster } from './form-cluster.js';
import { NODE_SOCKET, nodeArgs } from './node-args.js';
import type { ProfileName, TargetProfile } from './profiles.js';
import { TargetProxy } from './proxy.js';
import { proxyRules, resolveProfile } from './resolve-profile.js';
import { Target, type TargetNode } from './target.js';
import { waitUntilReachable } from './target-ready.js';
import { bareCommands, commandsOf } from './valkey-commands.js';

export interface TargetOptions {
  /** ACL users besides the harness's (deployed.ts gives the stack's). Default: none. */
  readonly users?: readonly TargetUser[];
  /** cluster-node-timeout. Default 2000 ms. */
  readonly nodeTimeoutMs?: number;
  /** How long the cluster may take to be healthy. Default 60 s. */
  readonly readyTimeoutMs?: number;
  /** More server arguments, after the profile's (a later setting wins). */
  readonly extraArgs?: readonly string[];
}

export async function startTarget(
  profile: ProfileName | TargetProfile,
  options: TargetOptions = {},
): Promise<Target> {
  const resolved = resolveProfile(profile, await bareCommands());
  const certificates = resolved.profile.tls ? await targetCertificates() : undefined;
  const dir = await mkdtemp(join(tmpdir(), 'emq-target-'));
  const admin = { username: HARNESS_USER, password: newPassword() };
  const commands = new CommandLog();
  const proxies: TargetProxy[] = [];
  let servers: ValkeyServer[] = [];
  const cleanup = async (): Promise<void> => {
    await Promise.allSettled(proxies.map((proxy) => proxy.stop()));
    await Promise.allSettled(servers.map((server) => server.stop()));
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const aclFile = join(dir, 'users.acl');
    const passwords = await writeAclFile(aclFile, {
      harnessPassword: admin.password,
      defaultUser: resolved.profile.defaultUser,
      users: options.users ?? [],
    });
    const { containers } = await bareCommands();
    const rules = proxyRules(resolved, HARNESS_USER);
    const upstreams: Array<string | undefined> = [];
    for (let index = 0; index < resolved.nodeCount; index++) {
      proxies.push(
        await TargetProxy.start({
          upstream: () => upstreams[index] ?? join(dir, 'not-started.sock'),
          tls:
            certificates === undefined
              ? undefined
              : { cert: certificates.cert, key: certificates.key },
          rules,
          log: commands,
          containers,
        }),
      );
    }
    const ports = await freePorts(resolved.nodeCount, { clusterBus: resolved.cluster });
    servers = await startAll(
      proxies.map((proxy, index) => ({
        argsFor: nodeArgs({
          resolved,
          certificates,
          aclFile,
          admin,
          proxyPort: proxy.port,
          nodeTimeoutMs: options.nodeTimeoutMs,
          extraArgs: options.extraArgs ?? [],
        }),
        auth: admin,
        clusterBus: resolved.cluster,
        startTimeoutMs: undefined,
        port: ports[index],
        socket: NODE_SOCKET,
        scheme: certificates === undefined ? 'redis' : 'rediss',
      })),
    );
    servers.forEach((server, index) => {
      upstreams[index] = server.socketPath;
    });
    const scheme = certificates === undefined ? 'redis' : 'rediss';
    const nodes: TargetNode[] = servers.map((server, index) => {
      const proxy = proxies[index] as TargetProxy;
      return { server, proxy, url: `${scheme}://${LOOPBACK}:${proxy.port}` };
    });
    if (resolved.cluster)
      await formCluster(servers, resolved.shards, options.readyTimeoutMs ?? 60_000);
    const known = await (servers[0] as ValkeyServer).probe(commandsOf);
    const target = new Target({
      resolved,
      nodes,
      certificates,
      admin,
      passwords,
      commands,
      known,
      cleanup,
    });
    await target.waitForHealthy(options.readyTimeoutMs);
    await waitUntilReachable(target);
    return target;
  } catch (error) {
    await cleanup();
    throw error;
  }
}
