/**
 * A Valkey cluster on EC2 that loads the EchoMQ module: the native family (EMQ.ADMIT) with its
 * per-write fence and paused guard. Its spec is declared in spec.ts,
 * which the construct reads too.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ARM64_MODULE, HOST_MODULE } from '../../../module/artifacts.js';
import { FUNCTIONS_RULES_NATIVE } from '../../../src/families/access-rules.js';
import { packageDir } from '../../shared/package-dir.js';
import type { CacheTarget } from '../cache.js';
import { type CacheKindModule, type CreatedOptions, placed } from '../kind.js';
import { SelfManagedValkey } from './construct.js';
import { instanceArchitecture } from './module-artifact.js';
import type { ResolvedSelfManaged, SelfManagedSpec } from './spec.js';

export type { ResolvedSelfManaged, SelfManagedSpec };

/** The functions' rules on a cluster that loads the module: the native family (src/families/access-rules.ts). */
export const SELFMANAGED_ACCESS_STRING = FUNCTIONS_RULES_NATIVE;

export type SelfManagedOptions = CreatedOptions<SelfManagedSpec>;

export const SELFMANAGED = {
  factory: {
    /** A Valkey cluster on EC2 that loads the EchoMQ module. */
    selfManaged: (options: SelfManagedOptions = {}) => placed('selfmanaged', options),
  },
  facts: {
    builds: 'Valkey on EC2 that loads the EchoMQ module',
    family: '`native`: `EMQ.ADMIT`',
    acknowledgement: '`1` where shards have replicas',
    memoryPolicy: '`noeviction`',
    durability: "each node's AOF (`appendfsync everysec`) on its EBS volume, plus replicas",
    fence: 'yes',
    limits: 'no resizing after creation',
  },
  // Every node loads the module.
  family: 'native',
  contextKeys: [
    'moduleArtifact',
    'selfManagedShards',
    'selfManagedReplicas',
    'instanceType',
    'dataVolumeGiB',
    'replacedNodes',
  ],
  joinsUserVpc: false,
  offersIamAuth: false,
  fromContext: (read) => ({
    kind: 'selfmanaged',
    moduleArtifact: read.text('moduleArtifact'),
    shards: read.number('selfManagedShards'),
    replicasPerShard: read.number('selfManagedReplicas'),
    instanceType: read.text('instanceType'),
    dataVolumeGiB: read.number('dataVolumeGiB'),
    replacedNodes: read.list('replacedNodes')?.map(Number),
  }),
  resolve(input, ensure, int) {
    const instanceType = input.instanceType ?? 't4g.small';
    // The build for the nodes' CPU: the package ships both (package.json `files`), and the
    // repository's `make -C module` builds both.
    const build =
      instanceArchitecture(instanceType) === 'arm64'
        ? { target: 'arm64', file: ARM64_MODULE }
        : { target: 'host', file: HOST_MODULE };
    const cache = {
      kind: input.kind,
      moduleArtifact: input.moduleArtifact ?? join(packageDir(), build.file),
      shards: input.shards ?? 3,
      replicasPerShard: input.replicasPerShard ?? 1,
      instanceType,
      port: input.port ?? 6379,
      accessString: input.accessString ?? SELFMANAGED_ACCESS_STRING,
      dataVolumeGiB: input.dataVolumeGiB ?? 20,
      replacedNodes: input.replacedNodes ?? [],
    };
    ensure(
      cache.moduleArtifact !== '',
      'cache=selfmanaged needs moduleArtifact, the path of the EchoMQ module (.so) the nodes load.',
    );
    ensure(
      cache.moduleArtifact === '' || existsSync(cache.moduleArtifact),
      `moduleArtifact ${cache.moduleArtifact} does not exist (make -C module ${build.target} builds ${build.file}).`,
    );
    int('selfManagedShards', cache.shards, 1, 30);
    int('selfManagedReplicas', cache.replicasPerShard, 0, 5);
    // Valkey promotes a replica by a majority of the slot-owning primaries: with one or two
    // shards, losing a primary leaves no majority, and its replica is never promoted.
    ensure(
      cache.replicasPerShard === 0 || cache.shards < 1 || cache.shards >= 3,
      `selfManagedShards must be at least 3 with replicas (got ${cache.shards}): a replica is promoted by a majority of the primaries, which ${cache.shards} shard${cache.shards === 1 ? '' : 's'} cannot give once one is lost. Use 3 or more shards, or selfManagedReplicas=0 for a cluster without failover.`,
    );
    ensure(
      /^[a-z][a-z0-9-]*\.[a-z0-9]+$/.test(cache.instanceType),
      'instanceType must look like t4g.small.',
    );
    // The cluster bus listens on port + 10000.
    int('port', cache.port, 1_024, 55_535);
    // The rules reach the nodes inside single quotes of a shell environment file.
    ensure(
      /^on\s[^'\n]*$/.test(cache.accessString),
      "accessString must start with 'on' and hold no quote.",
    );
    int('dataVolumeGiB', cache.dataVolumeGiB, 1, 16_384);
    const nodes = cache.shards * (cache.replicasPerShard + 1);
    ensure(
      nodes < 1 ||
        cache.replacedNodes.every(
          (index) => Number.isSafeInteger(index) && index >= 0 && index < nodes,
        ),
      `replacedNodes must name node indexes from 0 to ${nodes - 1}.`,
    );
    return cache;
  },
  knownReplicas: (cache) => cache.replicasPerShard,
  logConfirmsWrites: () => false,
  describe: () => ({ cacheAuth: 'password', durability: 'aof-everysec' }),
  create: (scope, id, cache, { network, wire, removalPolicy }): CacheTarget =>
    new SelfManagedValkey(scope, id, {
      spec: cache,
      network,
      wire,
      family: SELFMANAGED.family,
      removalPolicy,
    }),
} satisfies CacheKindModule<SelfManagedSpec, ResolvedSelfManaged>;
