// The ACL rules as the stack deploys them on each cache kind, read from the synthesized
// CloudFormation: the ElastiCache RBAC users' AccessString (node-based: the function family;
// Serverless: the script family), and the self-managed nodes' settings file in their user
// data (bootstrap.sh writes those strings into users.acl; the native family). The ACL tests
// apply these, never the constants the stack was built from.
import { INSTALLER_USERNAME as ELASTICACHE_INSTALLER } from '../../infra/cache/elasticache/construct.js';
import type { CacheSpec } from '../../infra/cache/modules.js';
import { APP_USERNAME, INSTALLER_USERNAME } from '../../infra/cache/selfmanaged/construct.js';
import { synthStack } from '../infra/support/synth.js';
import { flattenIntrinsics, resourcesOf } from '../infra/support/template.js';
import { MODULE_PATH } from '../support/servers.js';

export interface DeployedRules {
  /** The functions' user and the installer's user. */
  readonly functions: string;
  readonly installer: string;
}

export const FUNCTIONS_USER = APP_USERNAME;
export const INSTALLER_USER = INSTALLER_USERNAME;

/** The two RBAC users' access strings of a stack on ElastiCache (node-based or Serverless). */
function rbacRules(cache: CacheSpec): DeployedRules {
  const { template } = synthStack({ cache });
  const users = Object.values(resourcesOf(template, 'AWS::ElastiCache::User'));
  const accessOf = (name: string): string => {
    const found = users.filter((user) => user.Properties.UserName === name);
    const access = found[0]?.Properties.AccessString;
    if (found.length !== 1 || typeof access !== 'string') {
      throw new Error(`expected one RBAC user ${name} with a literal access string`);
    }
    return access;
  };
  if (ELASTICACHE_INSTALLER !== INSTALLER_USER) throw new Error('installer names differ');
  return { functions: accessOf(FUNCTIONS_USER), installer: accessOf(INSTALLER_USER) };
}

/** The default stack: node-based ElastiCache, the function family. */
export function elastiCacheRules(): DeployedRules {
  return rbacRules({ kind: 'elasticache' });
}

/** cache=serverless: the script family. */
export function serverlessRules(): DeployedRules {
  return rbacRules({ kind: 'serverless' });
}

/** The rules every self-managed node writes into its users.acl, from its user data. */
export function selfManagedRules(): DeployedRules {
  const { template } = synthStack({ cache: { kind: 'selfmanaged', moduleArtifact: MODULE_PATH } });
  const settingOf = (name: string): string => {
    const values = new Set(
      Object.values(resourcesOf(template, 'AWS::EC2::Instance')).map(
        (instance) =>
          new RegExp(`^${name}='([^']*)'$`, 'm').exec(
            flattenIntrinsics(instance.Properties.UserData),
          )?.[1],
      ),
    );
    const [value, ...rest] = [...values];
    if (value === undefined || rest.length > 0) throw new Error(`nodes disagree on ${name}`);
    return value;
  };
  return {
    functions: settingOf('EMQ_ACCESS_STRING'),
    installer: settingOf('EMQ_INSTALLER_ACCESS_STRING'),
  };
}
