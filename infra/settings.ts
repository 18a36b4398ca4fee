/**
 * Everything a deployment of echomq-lambda can choose, the default of every field, and the one
 * check that reports every invalid choice at once, before any construct is built.
 *
 * Settings are plain data (they come from `-c key=value` or from code), so the same check serves
 * `cdk synth` and the tests.
 */
import { existsSync } from 'node:fs';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';

/** Where the functions find Valkey. */
export type CacheKind = 'elasticache' | 'existing' | 'selfmanaged';
export const CACHE_KINDS: readonly CacheKind[] = ['elasticache', 'existing', 'selfmanaged'];

/**
 * The ACL rules of the functions' ElastiCache user: the EchoMQ keys only; reads, writes,
 * scripts and the cluster topology commands the client needs, nothing dangerous except INFO
 * (the client's ready check).
 */
export const DEFAULT_ACCESS_STRING =
  'on ~emq:* ~{emq}:* resetchannels -@all +@read +@write +@scripting +@connection +@slow -@dangerous +info';

export interface ElastiCacheSettings {
  readonly kind: 'elasticache';
  /** Node type of every node. Default `cache.t4g.small` (Graviton, burstable). */
  readonly nodeType?: string;
  /** Shards (node groups) of the cluster. Default `2`. */
  readonly shards?: number;
  /** Replicas per shard, 1 to 5; Multi-AZ with automatic failover needs at least 1. Default `1`. */
  readonly replicasPerShard?: number;
  /** Valkey engine version (7.2 or later). Default `'8.0'`. */
  readonly engineVersion?: string;
  /** TCP port of the nodes. Default `6379`. */
  readonly port?: number;
  /** ACL rules of the functions' RBAC user. Default DEFAULT_ACCESS_STRING. */
  readonly accessString?: string;
  /** Days of automatic daily snapshots kept; 0 turns them off. Default `1`. */
  readonly snapshotRetentionDays?: number;
}

export interface ExistingCacheSettings {
  readonly kind: 'existing';
  /**
   * The server, or cluster seeds: `rediss://host:port`, `redis://host:port`, or `host:port`
   * (read as `rediss://`). Required. The server must load the EchoMQ module (executor native).
   */
  readonly urls: readonly string[];
  /** The endpoint is a Valkey cluster. Default `true`. */
  readonly cluster?: boolean;
  /** Complete ARN of a Secrets Manager secret `{"username","password"}`. Default: none (no AUTH). */
  readonly secretArn?: string;
}

/**
 * The functions' rules on a cluster that loads the module: DEFAULT_ACCESS_STRING plus the
 * module's commands, which sit in none of the categories it names.
 */
export const SELFMANAGED_ACCESS_STRING = `${DEFAULT_ACCESS_STRING} +emq.enqueue +emq.wire`;

/** A Valkey cluster on EC2 that loads the EchoMQ module (functions run the native executor). */
export interface SelfManagedCacheSettings {
  readonly kind: 'selfmanaged';
  /**
   * Path of the EchoMQ module (`.so`) built for the nodes' CPU (arm64 on Graviton); deployed
   * as an S3 asset. Required.
   */
  readonly moduleArtifact: string;
  /** Primaries. Default `3`: a failover needs the votes of a majority of primaries. */
  readonly shards?: number;
  /** Replicas of each primary, 0 to 5 (0: no failover). Default `1`. */
  readonly replicasPerShard?: number;
  /** EC2 instance type of every node; a Graviton type (`t4g`, `m7g`, ...) runs arm64. Default `'t4g.small'`. */
  readonly instanceType?: string;
  /** TLS port of the nodes; their cluster bus listens on port + 10000. Default `6379`. */
  readonly port?: number;
  /** ACL rules of the functions' user. Default SELFMANAGED_ACCESS_STRING. */
  readonly accessString?: string;
  /** Size in GiB of each node's data volume (gp3, encrypted; holds the AOF). Default `20`. */
  readonly dataVolumeGiB?: number;
  /** Keep a snapshot of every data volume when the stack is deleted. Default `false`. */
  readonly snapshotOnDelete?: boolean;
  /**
   * Indexes of nodes whose instance an operator replaced; each mention launches that node
   * once more (see the README). Default `[]`.
   */
  readonly replacedNodes?: readonly number[];
}

export type CacheSettings = ElastiCacheSettings | ExistingCacheSettings | SelfManagedCacheSettings;

/** The EMQ_* tunables every function receives (see src/config.ts for their meaning). */
export interface EmqSettings {
  /** `EMQ_WIRE`, also the identity the fence installer writes. Default `'1'`. */
  readonly wire?: string;
  /** `EMQ_DEFAULT_QUEUE` of the SQS function. Default `'default'`. */
  readonly defaultQueue?: string;
  /** `EMQ_MAX_PAYLOAD_BYTES`. Default `262144`. */
  readonly maxPayloadBytes?: number;
  /** `EMQ_DEDUPE_TTL_MS`. Default `3600000`. */
  readonly dedupeTtlMs?: number;
  /** `EMQ_COMMAND_TIMEOUT_MS`. Default `2000`. */
  readonly commandTimeoutMs?: number;
  /** `EMQ_CONNECT_TIMEOUT_MS`. Default `3000`. */
  readonly connectTimeoutMs?: number;
}

export type ApiAuth =
  | { readonly kind: 'iam' }
  | {
      readonly kind: 'jwt';
      /** The token issuer, an https URL (for Cognito: https://cognito-idp.<region>.amazonaws.com/<pool id>). */
      readonly issuer: string;
      /** Accepted `aud` (or `client_id`) values; at least one. */
      readonly audience: readonly string[];
    };

export interface HttpSettings {
  /** Who may call the routes. Default `{ kind: 'iam' }` (SigV4-signed calls). */
  readonly auth?: ApiAuth;
  /** Steady-state requests per second of the stage. Default `100`. */
  readonly throttleRate?: number;
  /** Burst of requests of the stage. Default `200`. */
  readonly throttleBurst?: number;
  /** Function timeout in seconds, at most 29 (the HTTP API's own limit is 30). Default `10`. */
  readonly timeoutSeconds?: number;
  /** Function memory in MiB. Default `512`. */
  readonly memoryMiB?: number;
}

export interface SqsSettings {
  /** Records per invocation, 1 to 10. Default `10`. */
  readonly batchSize?: number;
  /** Most concurrent invocations the queue drives, 2 to 1000. Default `10`. */
  readonly maxConcurrency?: number;
  /** Function timeout in seconds. Default `30`. */
  readonly timeoutSeconds?: number;
  /** Visibility timeout of the source queue; at least 6 × the function timeout. Default 6 × timeoutSeconds. */
  readonly visibilityTimeoutSeconds?: number;
  /** Receives before SQS moves a message to the DLQ. Default `5`. */
  readonly maxReceiveCount?: number;
  /** Function memory in MiB. Default `512`. */
  readonly memoryMiB?: number;
}

export interface NetworkSettings {
  /** CIDR of the VPC the stack creates. Default `'10.40.0.0/16'`. */
  readonly cidr?: string;
  /** Availability zones used, 2 or 3 (Multi-AZ needs 2). Default `2`. */
  readonly maxAzs?: number;
  /** Create SQS and Secrets Manager interface endpoints (no NAT needed). Default `true`. */
  readonly interfaceEndpoints?: boolean;
}

export interface EchoMqSettings {
  /** Where the functions find Valkey. Default `{ kind: 'elasticache' }`. */
  readonly cache?: CacheSettings;
  /** Folder of the prebuilt bundles (`http/`, `sqs/`, `fence/`, each with `index.mjs`). Default `'dist/functions'`. */
  readonly bundleDir?: string;
  /** EMQ_* tunables. Default: each field's default. */
  readonly emq?: EmqSettings;
  /** The HTTP API and its function. Default: each field's default. */
  readonly http?: HttpSettings;
  /** The queues and the SQS function. Default: each field's default. */
  readonly sqs?: SqsSettings;
  /** The VPC the stack creates. Default: each field's default. */
  readonly network?: NetworkSettings;
  /** Days every log group keeps events (a CloudWatch Logs retention value). Default `30`. */
  readonly logRetentionDays?: number;
  /** Keep log groups when the stack is deleted. Default `false` (a teardown leaves nothing). */
  readonly keepLogsOnDelete?: boolean;
  /** SNS topic ARN the alarms notify. Default: none (alarms only change state). */
  readonly alarmTopicArn?: string;
}

type Resolved<T> = { readonly [K in keyof T]-?: Exclude<T[K], undefined> };

export type ResolvedCache =
  | Resolved<ElastiCacheSettings>
  | (Resolved<Omit<ExistingCacheSettings, 'secretArn'>> & {
      readonly secretArn: string | undefined;
    })
  | (Resolved<SelfManagedCacheSettings> & {
      /** The identity the nodes load the module with: emq.wire. */
      readonly wire: string;
    });

export interface ResolvedSettings {
  readonly cache: ResolvedCache;
  readonly bundleDir: string;
  readonly emq: Resolved<EmqSettings>;
  readonly http: Resolved<HttpSettings>;
  readonly sqs: Resolved<SqsSettings>;
  readonly network: Resolved<NetworkSettings>;
  readonly logRetentionDays: RetentionDays;
  readonly keepLogsOnDelete: boolean;
  readonly alarmTopicArn: string | undefined;
}

export const DEFAULT_BUNDLE_DIR = 'dist/functions';

/** Fills every default and collects every problem; `problems` is empty when the settings are valid. */
export function resolveSettings(input: EchoMqSettings = {}): {
  settings: ResolvedSettings;
  problems: string[];
} {
  const problems: string[] = [];
  const check = (ok: boolean, problem: string) => {
    if (!ok) problems.push(problem);
  };
  const int = (name: string, value: number, min: number, max: number) =>
    check(
      Number.isSafeInteger(value) && value >= min && value <= max,
      `${name} must be a whole number from ${min} to ${max}.`,
    );

  const resolvedCache = resolveCache(input.cache ?? { kind: 'elasticache' }, check, int);

  const emq = {
    wire: input.emq?.wire ?? '1',
    defaultQueue: input.emq?.defaultQueue ?? 'default',
    maxPayloadBytes: input.emq?.maxPayloadBytes ?? 262_144,
    dedupeTtlMs: input.emq?.dedupeTtlMs ?? 3_600_000,
    commandTimeoutMs: input.emq?.commandTimeoutMs ?? 2_000,
    connectTimeoutMs: input.emq?.connectTimeoutMs ?? 3_000,
  };
  check(/^[\x21-\x7e]{1,64}$/.test(emq.wire), 'wire must be 1 to 64 printable ASCII characters.');
  check(
    /^[A-Za-z0-9._-]{1,64}$/.test(emq.defaultQueue),
    'defaultQueue must be a queue name: 1 to 64 of A-Z a-z 0-9 . _ -',
  );
  // An SQS message is at most 256 KiB and a synchronous Lambda request at most 6 MB.
  int('maxPayloadBytes', emq.maxPayloadBytes, 0, 6_000_000);
  int('dedupeTtlMs', emq.dedupeTtlMs, 1_000, 2_592_000_000);
  int('commandTimeoutMs', emq.commandTimeoutMs, 1, 60_000);
  int('connectTimeoutMs', emq.connectTimeoutMs, 1, 60_000);
  // A self-managed cluster loads the module with the identity the functions expect.
  const cache: ResolvedCache =
    resolvedCache.kind === 'selfmanaged' ? { ...resolvedCache, wire: emq.wire } : resolvedCache;

  const auth = input.http?.auth ?? { kind: 'iam' };
  if (auth.kind === 'jwt') {
    check(/^https:\/\/\S+$/.test(auth.issuer), 'jwtIssuer must be an https URL.');
    check(
      auth.audience.length > 0 && auth.audience.every((value) => value.trim() !== ''),
      'jwtAudience must name at least one audience (comma-separated).',
    );
  } else {
    check(auth.kind === 'iam', "auth must be 'iam' or 'jwt'.");
  }
  const http = {
    auth,
    throttleRate: input.http?.throttleRate ?? 100,
    throttleBurst: input.http?.throttleBurst ?? 200,
    timeoutSeconds: input.http?.timeoutSeconds ?? 10,
    memoryMiB: input.http?.memoryMiB ?? 512,
  };
  int('throttleRate', http.throttleRate, 1, 100_000);
  int('throttleBurst', http.throttleBurst, 1, 100_000);
  int('http timeoutSeconds', http.timeoutSeconds, 1, 29);
  int('http memoryMiB', http.memoryMiB, 128, 10_240);

  const sqsTimeout = input.sqs?.timeoutSeconds ?? 30;
  const sqs = {
    batchSize: input.sqs?.batchSize ?? 10,
    maxConcurrency: input.sqs?.maxConcurrency ?? 10,
    timeoutSeconds: sqsTimeout,
    visibilityTimeoutSeconds: input.sqs?.visibilityTimeoutSeconds ?? 6 * sqsTimeout,
    maxReceiveCount: input.sqs?.maxReceiveCount ?? 5,
    memoryMiB: input.sqs?.memoryMiB ?? 512,
  };
  int('batchSize', sqs.batchSize, 1, 10);
  int('maxConcurrency', sqs.maxConcurrency, 2, 1_000);
  int('sqs timeoutSeconds', sqs.timeoutSeconds, 1, 900);
  int('visibilityTimeoutSeconds', sqs.visibilityTimeoutSeconds, 0, 43_200);
  // AWS's rule for SQS-driven functions: a message must stay hidden through retries of a batch.
  check(
    sqs.visibilityTimeoutSeconds >= 6 * sqs.timeoutSeconds,
    `visibilityTimeoutSeconds (${sqs.visibilityTimeoutSeconds}) must be at least 6 × the SQS function timeout (${6 * sqs.timeoutSeconds}).`,
  );
  int('maxReceiveCount', sqs.maxReceiveCount, 1, 1_000);
  int('sqs memoryMiB', sqs.memoryMiB, 128, 10_240);

  const network = {
    cidr: input.network?.cidr ?? '10.40.0.0/16',
    maxAzs: input.network?.maxAzs ?? 2,
    interfaceEndpoints: input.network?.interfaceEndpoints ?? true,
  };
  check(
    /^(\d{1,3}\.){3}\d{1,3}\/(1[6-9]|2[0-4])$/.test(network.cidr),
    'network cidr must be an IPv4 CIDR from /16 to /24.',
  );
  int('maxAzs', network.maxAzs, 2, 3);

  const logRetentionDays = input.logRetentionDays ?? RetentionDays.ONE_MONTH;
  check(
    Object.values(RetentionDays).includes(logRetentionDays),
    `logRetentionDays must be a CloudWatch Logs retention (${retentionChoices()}).`,
  );
  const alarmTopicArn = input.alarmTopicArn;
  check(
    alarmTopicArn === undefined || /^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:\S+$/.test(alarmTopicArn),
    'alarmTopicArn must be an SNS topic ARN.',
  );

  return {
    settings: {
      cache,
      bundleDir: input.bundleDir ?? DEFAULT_BUNDLE_DIR,
      emq,
      http,
      sqs,
      network,
      logRetentionDays,
      keepLogsOnDelete: input.keepLogsOnDelete ?? false,
      alarmTopicArn,
    },
    problems,
  };
}

function resolveCache(
  input: CacheSettings,
  check: (ok: boolean, problem: string) => void,
  int: (name: string, value: number, min: number, max: number) => void,
): Exclude<ResolvedCache, { kind: 'selfmanaged' }> | Resolved<SelfManagedCacheSettings> {
  switch (input.kind) {
    case 'elasticache': {
      const cache = {
        kind: input.kind,
        nodeType: input.nodeType ?? 'cache.t4g.small',
        shards: input.shards ?? 2,
        replicasPerShard: input.replicasPerShard ?? 1,
        engineVersion: input.engineVersion ?? '8.0',
        port: input.port ?? 6379,
        accessString: input.accessString ?? DEFAULT_ACCESS_STRING,
        snapshotRetentionDays: input.snapshotRetentionDays ?? 1,
      };
      check(
        /^cache\.[a-z0-9-]+\.[a-z0-9]+$/.test(cache.nodeType),
        'nodeType must look like cache.t4g.small.',
      );
      int('shards', cache.shards, 1, 500);
      int('replicasPerShard', cache.replicasPerShard, 1, 5);
      check(
        /^(7\.2|[89]\.\d+)$/.test(cache.engineVersion),
        "engineVersion must be a Valkey version from 7.2 (for example '8.0').",
      );
      int('port', cache.port, 1_024, 65_535);
      check(/^on\s/.test(cache.accessString), "accessString must start with 'on'.");
      int('snapshotRetentionDays', cache.snapshotRetentionDays, 0, 35);
      return cache;
    }
    case 'existing': {
      const urls = input.urls.map(normaliseUrl);
      check(
        urls.length > 0,
        'cache=existing needs valkeyEndpoint (host:port or rediss://host:port).',
      );
      for (const [index, url] of urls.entries()) {
        check(
          url !== undefined,
          `valkeyEndpoint entry ${index + 1} must be host:port, redis://host:port or rediss://host:port.`,
        );
      }
      const secretArn = input.secretArn;
      check(
        secretArn === undefined ||
          /^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:\S+-[A-Za-z0-9]{6}$/.test(
            secretArn,
          ),
        "valkeySecretArn must be a Secrets Manager secret's complete ARN (ending in -XXXXXX).",
      );
      return {
        kind: input.kind,
        urls: urls.filter((url): url is string => url !== undefined),
        cluster: input.cluster ?? true,
        secretArn,
      };
    }
    case 'selfmanaged': {
      const cache = {
        kind: input.kind,
        moduleArtifact: input.moduleArtifact,
        shards: input.shards ?? 3,
        replicasPerShard: input.replicasPerShard ?? 1,
        instanceType: input.instanceType ?? 't4g.small',
        port: input.port ?? 6379,
        accessString: input.accessString ?? SELFMANAGED_ACCESS_STRING,
        dataVolumeGiB: input.dataVolumeGiB ?? 20,
        snapshotOnDelete: input.snapshotOnDelete ?? false,
        replacedNodes: input.replacedNodes ?? [],
      };
      check(
        cache.moduleArtifact !== '',
        'cache=selfmanaged needs moduleArtifact, the path of the EchoMQ module (.so) the nodes load.',
      );
      check(
        cache.moduleArtifact === '' || existsSync(cache.moduleArtifact),
        `moduleArtifact ${cache.moduleArtifact} does not exist (npm run build:module builds test/module/emq.so).`,
      );
      int('selfManagedShards', cache.shards, 1, 30);
      int('selfManagedReplicas', cache.replicasPerShard, 0, 5);
      check(
        /^[a-z][a-z0-9-]*\.[a-z0-9]+$/.test(cache.instanceType),
        'instanceType must look like t4g.small.',
      );
      // The cluster bus listens on port + 10000.
      int('port', cache.port, 1_024, 55_535);
      // The rules reach the nodes inside single quotes of a shell settings file.
      check(
        /^on\s[^'\n]*$/.test(cache.accessString),
        "accessString must start with 'on' and hold no quote.",
      );
      int('dataVolumeGiB', cache.dataVolumeGiB, 1, 16_384);
      const nodes = cache.shards * (cache.replicasPerShard + 1);
      check(
        nodes < 1 ||
          cache.replacedNodes.every(
            (index) => Number.isSafeInteger(index) && index >= 0 && index < nodes,
          ),
        `replacedNodes must name node indexes from 0 to ${nodes - 1}.`,
      );
      return cache;
    }
    default:
      check(false, `cache must be one of ${CACHE_KINDS.join(', ')}.`);
      return input;
  }
}

/** `host:port` means TLS; a URL keeps its scheme. Undefined when the value is no endpoint. */
export function normaliseUrl(value: string): string | undefined {
  const text = value.trim();
  const url = /^[a-z]+:\/\//.test(text) ? text : `rediss://${text}`;
  try {
    const parsed = new URL(url);
    const ok =
      (parsed.protocol === 'redis:' || parsed.protocol === 'rediss:') &&
      parsed.hostname !== '' &&
      parsed.port !== '' &&
      parsed.username === '' &&
      parsed.password === '' &&
      (parsed.pathname === '' || parsed.pathname === '/');
    return ok ? `${parsed.protocol}//${parsed.host}` : undefined;
  } catch {
    return undefined;
  }
}

function retentionChoices(): string {
  return Object.values(RetentionDays)
    .filter((value) => typeof value === 'number')
    .join(', ');
}

/** Thrown with every problem of a settings object, one per line. */
export class InvalidSettingsError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(
      `echomq-lambda: ${problems.length} invalid setting${problems.length === 1 ? '' : 's'}:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`,
    );
    this.name = 'InvalidSettingsError';
  }
}
