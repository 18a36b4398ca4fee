/** The part of the construct's network a cache kind builds in. */
import type * as ec2 from 'aws-cdk-lib/aws-ec2';

export interface CacheNetwork {
  readonly vpc: ec2.IVpc;
  /** Where a cache the construct creates places its nodes. */
  readonly cacheSubnets: ec2.SubnetSelection;
  /** The interface endpoints the construct made (none: the VPC reaches AWS its own way). */
  readonly endpoints: readonly ec2.InterfaceVpcEndpoint[];
  /** The Secrets Manager endpoint among them, which cache nodes may need too. */
  readonly secretsManagerEndpoint: ec2.InterfaceVpcEndpoint | undefined;
}
