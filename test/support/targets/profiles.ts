/**
 * The declared table of target profiles: each one a real valkey-server (8.0.1 or 9.1.2, the
 * run's binary) configured the way a service runs it, so the product meets what it meets in
 * AWS. Data only: start-target.ts turns an entry into running nodes, their proxies and rules.
 *
 * What AWS documents, and where (pages read 2026-12-01, lists in aws-commands.ts):
 *
 * ElastiCache Serverless
 * - Commands: SupportedCommands.html lists what serverless caches support (CLUSTER INFO /
 *   MYID / NODES / REPLICAS / SHARDS / SLOTS "return state about the single virtual 'shard'
 *   exposed to the client"; AUTH, CLIENT GETNAME / REPLY / SETNAME, ECHO, HELLO, PING, QUIT,
 *   RESET, SELECT; COMMAND and its COUNT / DOCS / GETKEYS / GETKEYSANDFLAGS / INFO / LIST;
 *   INFO, ROLE, TIME, DBSIZE, FLUSHALL, FLUSHDB; EVAL, EVAL_RO, EVALSHA, EVALSHA_RO, SCRIPT
 *   EXISTS, SCRIPT LOAD, SCRIPT SHOW and SCRIPT FLUSH, "Currently a no-op, script cache is
 *   managed by the service"; MULTI / EXEC / DISCARD) and what is unavailable: every ElastiCache
 *   restriction (ACL SETUSER / LOAD / SAVE / DELUSER, BGREWRITEAOF, BGSAVE, the CLUSTER slot and
 *   membership subcommands, CONFIG, DEBUG, MIGRATE, PSYNC, REPLICAOF, SAVE, SLAVEOF, SHUTDOWN,
 *   SYNC) and, for serverless, ACL LOG, CLIENT CACHING / GETREDIR / ID / INFO / KILL / LIST /
 *   NO-EVICT / PAUSE / TRACKING / TRACKINGINFO / UNBLOCK / UNPAUSE, CLUSTER
 *   COUNT-FAILURE-REPORTS, COMMANDLOG, FCALL, FCALL_RO, FUNCTION and every subcommand, KEYS,
 *   LASTSAVE, LATENCY, MEMORY, MONITOR, MOVE, OBJECT, PFDEBUG, PFSELFTEST, PSUBSCRIBE, PUBSUB
 *   NUMPAT, PUNSUBSCRIBE, SCRIPT KILL, SLOWLOG, SWAPDB, WAIT. CLIENT SETINFO and WAITAOF are
 *   in neither list: the allowlist decides, so they count as unsupported. WATCH and UNWATCH
 *   are supported since 2025-12 (ServerlessWatch.html: keys of one hash slot only).
 * - Configuration (RedisConfiguration.html, "Serverless caches", not modifiable):
 *   cluster-enabled yes, "All slots are surfaced to clients as being owned by a single virtual
 *   node"; cluster-require-full-coverage no; cluster-allow-reads-when-down yes;
 *   cluster-allow-pubsubshard-when-down yes; lua-time-limit 5000; maxmemory-policy
 *   volatile-lru; notify-keyspace-events ""; timeout 0; acl-pubsub-default allchannels;
 *   client-query-buffer-limit 1 GiB and "clients cannot issue a request with more than 3,999
 *   arguments" ("Arguments per Request 3,999 ... will receive an error"); proto-max-bulk-len
 *   512 MiB; maxclients 65000; key names up to 4 KiB; Lua scripts up to 4 MiB; a primary port
 *   6379 and a READONLY read port 6380 on the same host.
 * - Key-less scripts (BestPractices.Clients.Redis.LuaScripts.html): `eval 'return "Hello
 *   World"' 0` answers `(error) ERR Lua scripts without any input keys are not supported.`
 * - TLS is always on (the stack's Serverless construct and docs/deploy.md "The cache kinds").
 *
 * ElastiCache node-based: ClientConfig.RestrictedCommands.html lists BGREWRITEAOF, BGSAVE,
 * CONFIG, DEBUG, MIGRATE, REPLICAOF, SAVE, SLAVEOF, SHUTDOWN, SYNC as unavailable;
 * SupportedCommands.html's first restricted list applies to every ElastiCache cache and adds
 * the ACL and CLUSTER administration subcommands and PSYNC. INFO is allowed.
 *
 * MemoryDB: restrictedcommands.html lists ACL DELUSER / LOAD / SAVE / SETUSER, BGREWRITEAOF,
 * BGSAVE, CLUSTER ADDSLOT / DELSLOT / SETSLOT, CONFIG, DEBUG, MIGRATE, MODULE, PSYNC,
 * REPLICAOF, SAVE, SHUTDOWN, SLAVEOF, SYNC as unavailable.
 *
 * Assumed here (no page says otherwise; each marked where it is used):
 * - The error texts AWS answers an unavailable command or subcommand with are not documented:
 *   the harness answers Valkey's own ("ERR unknown command ...", "ERR unknown subcommand ...").
 *   A renamed command is answered by the server itself. The text of the argument-cap error is
 *   not documented either; the harness's names the count and the cap.
 * - "3,999 arguments" counts the command name too (Valkey's argc): 3,999 pass, 4,000 do not.
 * - Node-based ElastiCache refuses MODULE (docs/deploy.md, "The cache kinds"; the AWS pages do not
 * list it).
 * - MemoryDB: one shard with one replica (the CLI's defaults), noeviction, TLS required,
 *   its default user switched off; its -RANGE slot subcommands unavailable like the listed ones.
 * - Serverless's memory limit is the harness's (64 MB): the service scales it.
 * - Self-managed: DEBUG and MODULE are refused (bootstrap.sh leaves enable-debug-command and
 *   enable-module-command at their default, no); the harness keeps DEBUG under its own name.
 */
import {
  ELASTICACHE_RESTRICTED,
  LUA_BEST_PRACTICES_PAGE,
  MEMORYDB_RESTRICTED,
  MEMORYDB_RESTRICTED_PAGE,
  NODE_BASED_RESTRICTED,
  NODE_BASED_RESTRICTED_PAGE,
  SERVERLESS_CONFIGURATION_PAGE,
  SERVERLESS_MAX_ARGUMENTS,
  SERVERLESS_RESTRICTED,
  SERVERLESS_SUPPORTED,
  SERVERLESS_WATCH_PAGE,
  SUPPORTED_COMMANDS_PAGE,
} from './aws-commands.js';

export type ProfileName =
  | 'plain-standalone'
  | 'plain-cluster'
  | 'elasticache'
  | 'serverless'
  | 'memorydb'
  | 'selfmanaged';

/** A value the synthesized stack decides, read by stack-settings.ts at start. */
export type StackRead =
  /** Every parameter of the stack's ElastiCache parameter group (cluster-enabled is checked). */
  | { readonly fromStack: 'elasticache-parameters' }
  /** The replication group's NumNodeGroups / ReplicasPerNodeGroup. */
  | { readonly fromStack: 'elasticache-shards' }
  | { readonly fromStack: 'elasticache-replicas' }
  /** These settings of the self-managed nodes' valkey.conf, as bootstrap.sh writes them. */
  | { readonly fromStack: 'selfmanaged-node-config'; readonly names: readonly string[] }
  /** EMQ_SHARDS / EMQ_REPLICAS of the self-managed nodes' user data. */
  | { readonly fromStack: 'selfmanaged-shards' }
  | { readonly fromStack: 'selfmanaged-replicas' };

export type Count = number | StackRead;

export type Topology =
  | { readonly kind: 'standalone' }
  | { readonly kind: 'cluster'; readonly shards: Count; readonly replicasPerShard: Count };

/** A server setting `name value`, or several read from the stack. */
export type Setting = readonly [name: string, value: string] | StackRead;

export interface TargetProfile {
  readonly name: ProfileName;
  /** What it stands in for. */
  readonly standsFor: string;
  readonly topology: Topology;
  /** Clients must speak TLS (tls-port only; replication and cluster bus over TLS too). */
  readonly tls: boolean;
  /** The nodes load the project's module (module/build/emq.so). */
  readonly module: boolean;
  /** The `default` user: on with every permission and no password, or switched off. */
  readonly defaultUser: 'on' | 'off';
  /** Server settings, in order (a later one wins). */
  readonly settings: readonly Setting[];
  /** Commands and `command|subcommand`s the service does not offer. */
  readonly unavailable: readonly string[];
  /** Where the service publishes the only commands it supports, that list. */
  readonly supported: readonly string[] | undefined;
  /** What the service refuses that renaming cannot express. */
  readonly limits: {
    readonly maxArguments: number | undefined;
    readonly refuseKeylessScripts: boolean;
    readonly scriptFlushIsNoop: boolean;
  };
  readonly sources: readonly string[];
}

const NO_LIMITS = {
  maxArguments: undefined,
  refuseKeylessScripts: false,
  scriptFlushIsNoop: false,
};

export const PROFILES: Readonly<Record<ProfileName, TargetProfile>> = {
  'plain-standalone': {
    name: 'plain-standalone',
    standsFor: 'a plain Valkey server, as the suites ran until now',
    topology: { kind: 'standalone' },
    tls: false,
    module: false,
    defaultUser: 'on',
    settings: [],
    unavailable: [],
    supported: undefined,
    limits: NO_LIMITS,
    sources: ['test/support/server-args.ts (the harness defaults)'],
  },
  'plain-cluster': {
    name: 'plain-cluster',
    standsFor: 'a plain Valkey cluster of three primaries, as the suites ran until now',
    topology: { kind: 'cluster', shards: 3, replicasPerShard: 0 },
    tls: false,
    module: false,
    defaultUser: 'on',
    settings: [],
    unavailable: [],
    supported: undefined,
    limits: NO_LIMITS,
    sources: ['test/support/cluster.ts (the harness defaults)'],
  },
  elasticache: {
    name: 'elasticache',
    standsFor: 'ElastiCache for Valkey, node-based, cluster mode, as the stack deploys it',
    topology: {
      kind: 'cluster',
      shards: { fromStack: 'elasticache-shards' },
      replicasPerShard: { fromStack: 'elasticache-replicas' },
    },
    tls: true,
    module: false,
    defaultUser: 'off',
    settings: [{ fromStack: 'elasticache-parameters' }],
    // MODULE: assumed (docs/deploy.md, "The cache kinds").
    unavailable: unique([...ELASTICACHE_RESTRICTED, ...NODE_BASED_RESTRICTED, 'module']),
    supported: undefined,
    limits: NO_LIMITS,
    sources: [SUPPORTED_COMMANDS_PAGE, NODE_BASED_RESTRICTED_PAGE, 'the synthesized stack'],
  },
  serverless: {
    name: 'serverless',
    standsFor: 'ElastiCache Serverless for Valkey: one virtual node serving every slot',
    topology: { kind: 'cluster', shards: 1, replicasPerShard: 0 },
    tls: true,
    module: false,
    defaultUser: 'off',
    settings: [
      ['maxmemory-policy', 'volatile-lru'],
      // Assumed: the service scales memory; a small limit lets a test reach it.
      ['maxmemory', '64mb'],
      ['lua-time-limit', '5000'],
      ['cluster-require-full-coverage', 'no'],
      ['cluster-allow-reads-when-down', 'yes'],
      ['cluster-allow-pubsubshard-when-down', 'yes'],
      ['notify-keyspace-events', ''],
      ['timeout', '0'],
      ['acl-pubsub-default', 'allchannels'],
      ['client-query-buffer-limit', '1gb'],
      ['proto-max-bulk-len', '512mb'],
    ],
    unavailable: unique([...ELASTICACHE_RESTRICTED, ...SERVERLESS_RESTRICTED]),
    supported: SERVERLESS_SUPPORTED,
    limits: {
      maxArguments: SERVERLESS_MAX_ARGUMENTS,
      refuseKeylessScripts: true,
      scriptFlushIsNoop: true,
    },
    sources: [
      SUPPORTED_COMMANDS_PAGE,
      SERVERLESS_CONFIGURATION_PAGE,
      LUA_BEST_PRACTICES_PAGE,
      SERVERLESS_WATCH_PAGE,
    ],
  },
  memorydb: {
    name: 'memorydb',
    standsFor:
      'Amazon MemoryDB for Valkey (cache=memorydb, or an existing endpoint the stack does not own)',
    // The CLI's defaults and cache=memorydb's: one shard with one replica.
    topology: { kind: 'cluster', shards: 1, replicasPerShard: 1 },
    tls: true,
    module: false,
    defaultUser: 'off',
    settings: [['maxmemory-policy', 'noeviction']],
    unavailable: MEMORYDB_RESTRICTED,
    supported: undefined,
    limits: NO_LIMITS,
    sources: [MEMORYDB_RESTRICTED_PAGE],
  },
  selfmanaged: {
    name: 'selfmanaged',
    standsFor: 'the stack’s self-managed Valkey cluster on EC2, loading the module',
    topology: {
      kind: 'cluster',
      shards: { fromStack: 'selfmanaged-shards' },
      replicasPerShard: { fromStack: 'selfmanaged-replicas' },
    },
    tls: true,
    module: true,
    defaultUser: 'off',
    settings: [
      {
        fromStack: 'selfmanaged-node-config',
        names: [
          'maxmemory-policy',
          'hash-max-listpack-value',
          'appendonly',
          'appendfsync',
          'cluster-require-full-coverage',
        ],
      },
    ],
    // Assumed: bootstrap.sh leaves enable-debug-command and enable-module-command at "no".
    unavailable: ['debug', 'module'],
    supported: undefined,
    limits: NO_LIMITS,
    sources: ['infra/cache/selfmanaged/scripts/bootstrap.sh', 'the synthesized stack'],
  },
};

/** Every profile, in table order. */
export const PROFILE_NAMES = Object.keys(PROFILES) as ProfileName[];

function unique(names: readonly string[]): readonly string[] {
  return [...new Set(names)];
}
