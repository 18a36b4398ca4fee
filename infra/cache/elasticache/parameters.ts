/**
 * The ElastiCache parameter group the stack deploys instead of the default one: the default
 * group of every Valkey family evicts (volatile-lru), which breaks both promises of
 * docs/reliability.md "Acknowledgements".
 */
import * as elasticache from 'aws-cdk-lib/aws-elasticache';
import type { Construct } from 'constructs';

/** The parameter group family of a Valkey engine version: 7.2 -> valkey7, 8.x -> valkey8, 9.x -> valkey9. */
export function parameterGroupFamily(engineVersion: string): string {
  return `valkey${engineVersion.split('.')[0]}`;
}

/** The parameters that differ from the family's default (cluster mode is a parameter too). */
export const CLUSTER_PARAMETERS: Readonly<Record<string, string>> = {
  'cluster-enabled': 'yes',
  'maxmemory-policy': 'noeviction',
  // Rows whose payload is up to 1 KiB stay listpacks instead of hash tables: about a quarter
  // less memory per job and cheaper writes (bench/README.md, "Rows as listpacks"). Larger
  // payloads still make a hash table, as on any server.
  'hash-max-listpack-value': '1024',
};

export function noEvictionParameterGroup(
  scope: Construct,
  id: string,
  engineVersion: string,
): elasticache.CfnParameterGroup {
  return new elasticache.CfnParameterGroup(scope, id, {
    cacheParameterGroupFamily: parameterGroupFamily(engineVersion),
    description:
      'echomq-lambda: cluster mode, noeviction (a full cache refuses writes, evicts nothing), rows up to 1 KiB as listpacks',
    properties: { ...CLUSTER_PARAMETERS },
  });
}
