/**
 * A Valkey endpoint the construct does not own: any Valkey 7.2 or later, MemoryDB included.
 * The functions run EMQ_EXECUTOR=auto unless told otherwise: the native family where every
 * primary loads the EchoMQ module, else the function family, decided at connect. Its settings
 * are declared beside the construct that reads them (../existing.ts).
 */
import { EXECUTORS } from '../../../src/settings/config.js';
import { normaliseUrl } from '../endpoint-url.js';
import type { CacheKindModule } from '../kind.js';
import {
  type ExistingCacheSettings,
  type ExistingIamAuth,
  type ExistingInstaller,
  ExistingValkey,
  type ResolvedExisting,
} from './construct.js';

export type { ExistingCacheSettings, ExistingIamAuth, ExistingInstaller, ResolvedExisting };

const SECRET_ARN = /^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:\S+-[A-Za-z0-9]{6}$/;

export const EXISTING: CacheKindModule<ExistingCacheSettings, ResolvedExisting> = {
  executor: 'auto',
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
  resolve(input, ensure) {
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
    const executor = input.executor ?? EXISTING.executor;
    ensure(EXECUTORS.includes(executor), `executor must be one of ${EXECUTORS.join(', ')}.`);
    return {
      kind: input.kind,
      urls: urls.filter((url): url is string => url !== undefined),
      cluster: input.cluster ?? true,
      secretArn,
      secret,
      iam,
      securityGroup: input.securityGroup,
      installer,
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

function installerFromContext(secretArn: string | undefined): ExistingInstaller | undefined {
  return secretArn === undefined ? undefined : { secretArn };
}
