/**
 * A Valkey endpoint the construct does not own: any Valkey 7.2 or later, MemoryDB included.
 * The functions run EMQ_EXECUTOR=auto unless told otherwise: the native family where every
 * primary loads the EchoMQ module, else the function family, decided at connect. Its spec is
 * declared beside the construct that reads it (construct.ts).
 */
import type * as ec2 from 'aws-cdk-lib/aws-ec2';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { FAMILY_CHOICES, type FamilyChoice } from '../../../src/settings/config.js';
import { normaliseUrl } from '../endpoint-url.js';
import type { CacheKindModule, PlacedCache } from '../kind.js';
import {
  type ExistingIamAuth,
  type ExistingInstaller,
  type ExistingSpec,
  ExistingValkey,
  type ResolvedExisting,
} from './construct.js';

export type { ExistingIamAuth, ExistingInstaller, ExistingSpec, ResolvedExisting };

const SECRET_ARN = /^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:\S+-[A-Za-z0-9]{6}$/;

export interface ExistingOptions {
  /** `host:port`, comma-separated cluster seeds, or `rediss://` / `redis://` URLs. */
  readonly endpoint: string;
  /**
   * The endpoint is a Valkey cluster.
   * @default `true`
   */
  readonly cluster?: boolean;
  /**
   * TLS to a `host:port` endpoint.
   * @default `true`
   */
  readonly tls?: boolean;
  /** The cache's security group: the construct admits the functions on the endpoint's port. */
  readonly securityGroup?: ec2.ISecurityGroup;
  /**
   * A Secrets Manager secret `{"username","password"}`.
   * @default none (no AUTH)
   */
  readonly secret?: secretsmanager.ISecret;
  /** ElastiCache IAM tokens for this user, instead of a secret. */
  readonly iam?: ExistingIamAuth;
  /**
   * The family of admission calls.
   * @default `auto`: native where the module is loaded, else function
   */
  readonly family?: FamilyChoice;
  /**
   * The credentials the deploy-time installer uses: a user with the installer's rules of
   * docs/security.md (`SET` of `{emq}:version`, `FUNCTION LOAD` or `SCRIPT LOAD`), by secret or
   * IAM. The installer function may read this secret only.
   * @default none; the installer connects as the functions' user and only verifies that every primary already holds this version's identity and library (run `emq install` as an administrator first), failing the deploy otherwise
   */
  readonly installer?:
    | { readonly secret: secretsmanager.ISecret }
    | { readonly iam: ExistingIamAuth };
}

export const EXISTING = {
  factory: {
    /** A Valkey 7.2+ endpoint (ElastiCache, MemoryDB, your own) the construct does not own. */
    existing: (options: ExistingOptions) => existingCache(options),
  },
  facts: {
    builds: 'nothing: your Valkey 7.2+ (MemoryDB included), with or without the EchoMQ module',
    family: '`auto`: native where every primary loads the module, else function',
    acknowledgement: '`0` unless `-c ackReplicas=N`',
    memoryPolicy: '`noeviction` or `volatile-*` serve; `allkeys-*` is refused at connect',
    durability: "the server's own (MemoryDB keeps a Multi-AZ transaction log)",
    fence: 'with the module',
    limits: 'yours',
  },
  family: 'auto',
  // vpcId, subnetIds and securityGroupIds are read by the app (its network), for this kind only.
  contextKeys: [
    'valkeyEndpoint',
    'valkeyCluster',
    'valkeySecretArn',
    'valkeyInstallerSecretArn',
    'vpcId',
    'subnetIds',
    'securityGroupIds',
  ],
  joinsUserVpc: true,
  offersIamAuth: false,
  fromContext: (read) => ({
    kind: 'existing',
    urls: read.list('valkeyEndpoint') ?? [],
    cluster: read.flag('valkeyCluster'),
    secretArn: read.text('valkeySecretArn'),
    installer: installerFromContext(read.text('valkeyInstallerSecretArn')),
  }),
  resolve(input, ensure): ResolvedExisting {
    const urls = input.urls.map(normaliseUrl);
    ensure(
      urls.length > 0,
      'cache=existing needs valkeyEndpoint (host:port or rediss://host:port).',
    );
    for (const [index, url] of urls.entries()) {
      ensure(
        url !== undefined,
        `valkeyEndpoint entry ${index + 1} must be host:port, redis://host:port or rediss://host:port.`,
      );
    }
    const { secretArn, secret, iam } = input;
    ensure(
      secretArn === undefined || SECRET_ARN.test(secretArn),
      "valkeySecretArn must be a Secrets Manager secret's complete ARN (ending in -XXXXXX).",
    );
    ensure(
      iam === undefined || (secretArn === undefined && secret === undefined),
      'cache=existing takes a secret or iam, not both: one source of credentials.',
    );
    const installer = input.installer;
    if (installer !== undefined) {
      const given = [installer.secret, installer.secretArn, installer.iam].filter(
        (credentials) => credentials !== undefined,
      );
      ensure(
        given.length === 1,
        "cache=existing: installer takes one of secret or iam (the installer's own user, with the installer's rules of docs/security.md).",
      );
      ensure(
        installer.secretArn === undefined || SECRET_ARN.test(installer.secretArn),
        "valkeyInstallerSecretArn must be a Secrets Manager secret's complete ARN (ending in -XXXXXX).",
      );
    }
    const family = input.family ?? EXISTING.family;
    ensure(FAMILY_CHOICES.includes(family), `family must be one of ${FAMILY_CHOICES.join(', ')}.`);
    return {
      kind: input.kind,
      urls: urls.filter((url): url is string => url !== undefined),
      cluster: input.cluster ?? true,
      secretArn,
      secret,
      iam,
      securityGroup: input.securityGroup,
      installer,
      family,
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
  create: (scope, id, cache) => new ExistingValkey(scope, id, { spec: cache }),
} satisfies CacheKindModule<ExistingSpec, ResolvedExisting>;

/** The endpoint's seeds as URLs: a bare `host:port` is TLS unless `tls: false`. */
function existingCache(options: ExistingOptions): PlacedCache<ExistingSpec> {
  const { endpoint, tls = true, ...rest } = options;
  const urls = endpoint
    .split(',')
    .map((seed) => seed.trim())
    .map((seed) => (/^[a-z]+:\/\//.test(seed) || tls ? seed : `redis://${seed}`));
  return { spec: { kind: 'existing', urls, ...rest } };
}

function installerFromContext(secretArn: string | undefined): ExistingInstaller | undefined {
  return secretArn === undefined ? undefined : { secretArn };
}
