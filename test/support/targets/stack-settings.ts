/**
 * The values a profile takes from the synthesized stack (profiles.ts, StackRead): the
 * ElastiCache parameter group and replication group, the self-managed nodes' user data and
 * the valkey.conf lines their bootstrap.sh writes. Read from what the stack deploys, never
 * from constants copied out of infra/, so a change there reaches the targets by itself.
 * Each kind is synthesized once per test process (templates.ts).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SCRIPTS_PATH } from '../../../infra/cache/selfmanaged/construct.js';
import { flattenIntrinsics, onlyResource, resourcesOf } from '../../infra/support/template.js';
import type { StackRead } from './profiles.js';
import { stackTemplate } from './templates.js';

/** A count (shards, replicas) the stack decides. */
export function stackCount(read: StackRead): number {
  const value = readOne(read);
  const count = Number(value);
  if (!Number.isSafeInteger(count) || count < 0) {
    throw new Error(`the stack's ${read.fromStack} is ${JSON.stringify(value)}, not a count`);
  }
  return count;
}

/** Server settings the stack decides, as `[name, value]` pairs. */
export function stackSettings(read: StackRead): Array<[string, string]> {
  switch (read.fromStack) {
    case 'elasticache-parameters': {
      const [, group] = onlyResource(
        stackTemplate('elasticache'),
        'AWS::ElastiCache::ParameterGroup',
      );
      const parameters = group.Properties.Properties as Record<string, unknown> | undefined;
      const pairs = Object.entries(parameters ?? {}).map(([name, value]) => {
        if (typeof value !== 'string') throw new Error(`parameter ${name} is not a literal`);
        return [name, value] as [string, string];
      });
      // Cluster mode is the profile's topology; the group must agree with it.
      const cluster = pairs.find(([name]) => name === 'cluster-enabled')?.[1];
      if (cluster !== 'yes') throw new Error(`the parameter group has cluster-enabled ${cluster}`);
      return pairs.filter(([name]) => name !== 'cluster-enabled');
    }
    case 'selfmanaged-node-config':
      return read.names.map((name) => [name, nodeConfigValue(name)]);
    default:
      throw new Error(`${read.fromStack} is a count, not settings`);
  }
}

function readOne(read: StackRead): unknown {
  switch (read.fromStack) {
    case 'elasticache-shards':
      return replicationGroup().NumNodeGroups;
    case 'elasticache-replicas':
      return replicationGroup().ReplicasPerNodeGroup;
    case 'selfmanaged-shards':
      return userDataSetting('EMQ_SHARDS');
    case 'selfmanaged-replicas':
      return userDataSetting('EMQ_REPLICAS');
    default:
      throw new Error(`${read.fromStack} is settings, not a count`);
  }
}

function replicationGroup(): Record<string, unknown> {
  return onlyResource(stackTemplate('elasticache'), 'AWS::ElastiCache::ReplicationGroup')[1]
    .Properties;
}

/** A `NAME='value'` line every self-managed node's user data holds alike. */
export function userDataSetting(name: string): string {
  const values = new Set(
    Object.values(resourcesOf(stackTemplate('selfmanaged'), 'AWS::EC2::Instance')).map(
      (instance) =>
        new RegExp(`^${name}='([^']*)'$`, 'm').exec(
          flattenIntrinsics(instance.Properties.UserData),
        )?.[1],
    ),
  );
  const [value, ...rest] = [...values];
  if (value === undefined || rest.length > 0) throw new Error(`the nodes disagree on ${name}`);
  return value;
}

/**
 * A literal `'name value'` line of bootstrap.sh's write_config(): the settings every node's
 * valkey.conf gets whatever its settings (the others come from the user data).
 */
function nodeConfigValue(name: string): string {
  const script = readFileSync(join(SCRIPTS_PATH, 'bootstrap.sh'), 'utf8');
  const body = /^write_config\(\) \{\n([\s\S]*?)\n\}/m.exec(script)?.[1];
  if (body === undefined) throw new Error('bootstrap.sh has no write_config()');
  const values = [...body.matchAll(/'([a-z-]+) ([^'$]*)'/g)]
    .filter((match) => match[1] === name)
    .map((match) => match[2] as string);
  if (values.length !== 1) throw new Error(`bootstrap.sh writes ${name} ${values.length} times`);
  return values[0] as string;
}
