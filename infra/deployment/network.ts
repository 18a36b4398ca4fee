/**
 * The network options of a deployment: the stack's own VPC, or the user's VPC named by id (for
 * cache=existing, whose Valkey lives there). Ids come from context, so synthesis does no lookup.
 */
import { cacheKind } from '../cache/modules.js';
import { CACHE_KINDS, type CacheKind } from '../cache/registry.js';
import type { Ensure, Resolved } from '../shared/resolved.js';

export interface NetworkOptions {
  /**
   * CIDR of the VPC the stack creates.
   * @default `'10.40.0.0/16'`
   */
  readonly cidr?: string;
  /**
   * Availability zones used, 2 or 3 (Multi-AZ needs 2).
   * @default `2`
   */
  readonly maxAzs?: number;
  /**
   * Create SQS and Secrets Manager interface endpoints.
   * @default `true` in the stack's own VPC, `false` in the user's (vpcId): that VPC may already have them, or a NAT
   */
  readonly interfaceEndpoints?: boolean;
  /**
   * Deploy the functions into this existing VPC (cache=existing only).
   * @default a VPC of the stack's own
   */
  readonly vpcId?: string;
  /** The functions' subnets in that VPC, at least two. Required with vpcId. */
  readonly subnetIds?: readonly string[];
  /**
   * Security groups the functions use in that VPC; the user's rules apply as they are.
   * @default a group the stack creates in that VPC, with egress to the Valkey ports and HTTPS only
   */
  readonly securityGroupIds?: readonly string[];
}

export type ResolvedNetwork = Resolved<Omit<NetworkOptions, 'vpcId'>> & {
  readonly vpcId: string | undefined;
};

/** The kinds whose cache lives in the user's VPC, so the functions may join it. */
const USER_VPC_KINDS = CACHE_KINDS.filter((kind) => cacheKind(kind).joinsUserVpc);

export function resolveNetwork(
  input: NetworkOptions | undefined,
  kind: CacheKind,
  ensure: Ensure,
): ResolvedNetwork {
  const vpcId = input?.vpcId;
  const network = {
    cidr: input?.cidr ?? '10.40.0.0/16',
    maxAzs: input?.maxAzs ?? 2,
    interfaceEndpoints: input?.interfaceEndpoints ?? vpcId === undefined,
    vpcId,
    subnetIds: input?.subnetIds ?? [],
    securityGroupIds: input?.securityGroupIds ?? [],
  };
  ensure(
    /^(\d{1,3}\.){3}\d{1,3}\/(1[6-9]|2[0-4])$/.test(network.cidr),
    'network cidr must be an IPv4 CIDR from /16 to /24.',
  );
  if (vpcId === undefined) {
    ensure(
      network.subnetIds.length === 0 && network.securityGroupIds.length === 0,
      'subnetIds and securityGroupIds need vpcId (the VPC they belong to).',
    );
    return network;
  }
  ensure(
    cacheKind(kind).joinsUserVpc,
    `vpcId applies only to cache=${USER_VPC_KINDS.join(' or cache=')} (cache=${kind} builds its own VPC).`,
  );
  ensure(/^vpc-[0-9a-f]{8,17}$/.test(vpcId), 'vpcId must be a VPC id (vpc-0123abcd...).');
  ensure(
    network.subnetIds.length >= 2,
    'vpcId needs subnetIds: at least two subnets of that VPC, in different AZs, with a route to Valkey.',
  );
  for (const id of network.subnetIds) {
    ensure(
      /^subnet-[0-9a-f]{8,17}$/.test(id),
      `subnetIds entry ${id} must be a subnet id (subnet-...).`,
    );
  }
  for (const id of network.securityGroupIds) {
    ensure(
      /^sg-[0-9a-f]{8,17}$/.test(id),
      `securityGroupIds entry ${id} must be a security group id (sg-...).`,
    );
  }
  return network;
}
