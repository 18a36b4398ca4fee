/**
 * A Valkey endpoint the construct does not own: any Valkey 7.2 or later, MemoryDB included.
 * The functions run EMQ_EXECUTOR=auto unless told otherwise: the native family where every
 * primary loads the EchoMQ module, else the function family, decided at connect.
 */
import type * as ec2 from 'aws-cdk-lib/aws-ec2';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { EXECUTORS, type ExecutorChoice } from '../../../src/config.js';
import type { Resolved } from '../../resolved.js';
import { normaliseUrl } from '../endpoint-url.js';
import { ExistingValkey } from '../existing.js';
import type { CacheKindModule } from '../kind.js';

/** ElastiCache IAM authentication to a cache the construct does not own. */
export interface ExistingIamAuth {
  /** The IAM-enabled user's id (its user name is the same). */
  readonly userId: string;
  /** The replication group id or the Serverless cache name. */
  readonly cacheName: string;
  /** The cache is ElastiCache Serverless. Default `false`. */
  readonly serverless?: boolean;
}

export interface ExistingCacheSettings {
  readonly kind: 'existing';
  /**
   * The server, or cluster seeds: `rediss://host:port`, `redis://host:port`, or `host:port`
   * (read as `rediss://`). Required.
   */
  readonly urls: readonly string[];
  /** The endpoint is a Valkey cluster. Default `true`. */
  readonly cluster?: boolean;
  /** A Secrets Manager secret `{"username","password"}`, by complete ARN (from context). */
  readonly secretArn?: string;
  /** The same, as a construct (from code). Default: none (no AUTH). */
  readonly secret?: secretsmanager.ISecret;
  /** IAM tokens instead of a password (exclusive with a secret). */
  readonly iam?: ExistingIamAuth;
  /** The cache's security group: the construct admits the functions on the cache's ports. */
  readonly securityGroup?: ec2.ISecurityGroup;
  /** The family of admission calls. Default `auto` (decided at connect). */
  readonly executor?: ExecutorChoice;
}

export type ResolvedExisting = Resolved<Pick<ExistingCacheSettings, 'kind' | 'urls' | 'cluster'>> &
  Pick<ExistingCacheSettings, 'secretArn' | 'secret' | 'iam' | 'securityGroup'> & {
    readonly executor: ExecutorChoice;
  };

const SECRET_ARN = /^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:\S+-[A-Za-z0-9]{6}$/;

export const EXISTING: CacheKindModule<ExistingCacheSettings, ResolvedExisting> = {
  executor: 'auto',
  // vpcId, subnetIds and securityGroupIds are read by the app (its network), for this kind only.
  contextKeys: [
    'valkeyEndpoint',
    'valkeyCluster',
    'valkeySecretArn',
    'vpcId',
    'subnetIds',
    'securityGroupIds',
  ],
  offersIamAuth: false,
  fromContext: (read) => ({
    kind: 'existing',
    urls: read.list('valkeyEndpoint') ?? [],
    cluster: read.flag('valkeyCluster'),
    secretArn: read.text('valkeySecretArn'),
  }),
  resolve(input, check) {
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
    const { secretArn, secret, iam } = input;
    check(
      secretArn === undefined || SECRET_ARN.test(secretArn),
      "valkeySecretArn must be a Secrets Manager secret's complete ARN (ending in -XXXXXX).",
    );
    check(
      iam === undefined || (secretArn === undefined && secret === undefined),
      'cache=existing takes a secret or iam, not both: one source of credentials.',
    );
    const executor = input.executor ?? EXISTING.executor;
    check(EXECUTORS.includes(executor), `executor must be one of ${EXECUTORS.join(', ')}.`);
    return {
      kind: input.kind,
      urls: urls.filter((url): url is string => url !== undefined),
      cluster: input.cluster ?? true,
      secretArn,
      secret,
      iam,
      securityGroup: input.securityGroup,
      executor,
    };
  },
  knownReplicas: () => undefined,
  logConfirmsWrites: () => false,
  describe: (cache) => ({
    cacheAuth:
      cache.iam !== undefined
        ? 'iam'
        : cache.secretArn === undefined && cache.secret === undefined
          ? 'none'
          : 'password',
    durability: 'server',
  }),
  create: (scope, id, cache) => new ExistingValkey(scope, id, { settings: cache }),
};
