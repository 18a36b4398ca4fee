/** What a deployment chooses for the self-managed cluster: read by its kind module and its construct. */
import type { Resolved } from '../../shared/resolved.js';

/** A Valkey cluster on EC2 that loads the EchoMQ module (functions run the native family). */
export interface SelfManagedSpec {
  readonly kind: 'selfmanaged';
  /**
   * Path of the EchoMQ module (`.so`) built for the nodes' CPU (arm64 on Graviton); deployed as an
   * S3 asset.
   * @default the build for the nodes' CPU that the package ships (`module/build/emq-arm64.so` on Graviton, `module/build/emq.so` on x86_64)
   */
  readonly moduleArtifact?: string;
  /**
   * Primaries.
   * @default `3`: a failover needs the votes of a majority of primaries
   */
  readonly shards?: number;
  /**
   * Replicas of each primary, 0 to 5 (0: no failover).
   * @default `1`
   */
  readonly replicasPerShard?: number;
  /**
   * EC2 instance type of every node; a Graviton type (`t4g`, `m7g`, ...) runs arm64.
   * @default `'t4g.small'`
   */
  readonly instanceType?: string;
  /**
   * TLS port of the nodes; their cluster bus listens on port + 10000.
   * @default `6379`
   */
  readonly port?: number;
  /**
   * ACL rules of the functions' user.
   * @default SELFMANAGED_ACCESS_STRING
   */
  readonly accessString?: string;
  /**
   * Size in GiB of each node's data volume (gp3, encrypted; holds the AOF).
   * @default `20`
   */
  readonly dataVolumeGiB?: number;
  /**
   * Indexes of nodes whose instance an operator replaced; each mention launches that node once more
   * (see the README).
   * @default `[]`
   */
  readonly replacedNodes?: readonly number[];
}

export type ResolvedSelfManaged = Resolved<SelfManagedSpec>;
