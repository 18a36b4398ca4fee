/**
 * The functions' side of the network, in the VPC the construct is given: their security group
 * (or the user's groups, left as they are), and, where asked, interface endpoints for the only
 * AWS APIs a function calls from inside the VPC (SQS for the DLQ, Secrets Manager for the
 * cache credentials). Without them the VPC must reach those APIs its own way (NAT or its own
 * endpoints): the functions' group then sends HTTPS out.
 */
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import { Construct } from 'constructs';
import type { CacheNetwork } from '../cache/network.js';

export interface EchoMqNetworkProps {
  readonly vpc: ec2.IVpc;
  /** Where the functions run. */
  readonly functionSubnets: ec2.SubnetSelection;
  /** Where a cache the construct creates lives. */
  readonly cacheSubnets: ec2.SubnetSelection;
  /**
   * The user's groups for the functions.
   * @default a group the construct creates
   */
  readonly securityGroups?: readonly ec2.ISecurityGroup[] | undefined;
  /** Create the SQS and Secrets Manager interface endpoints. */
  readonly interfaceEndpoints: boolean;
}

export class EchoMqNetwork extends Construct implements CacheNetwork {
  readonly vpc: ec2.IVpc;
  readonly functionSubnets: ec2.SubnetSelection;
  readonly cacheSubnets: ec2.SubnetSelection;
  /**
   * Shared by every function; the cache and the endpoints admit this group only. With the
   * user's groups, the first of them.
   */
  readonly functionsSecurityGroup: ec2.ISecurityGroup;
  /** Every group the functions carry. */
  readonly functionsSecurityGroups: ec2.ISecurityGroup[];
  readonly endpoints: ec2.InterfaceVpcEndpoint[] = [];
  readonly secretsManagerEndpoint: ec2.InterfaceVpcEndpoint | undefined;

  constructor(scope: Construct, id: string, props: EchoMqNetworkProps) {
    super(scope, id);
    this.vpc = props.vpc;
    this.functionSubnets = props.functionSubnets;
    this.cacheSubnets = props.cacheSubnets;
    const userGroups = [...(props.securityGroups ?? [])];
    const [firstUserGroup] = userGroups;
    this.functionsSecurityGroup =
      firstUserGroup ??
      new ec2.SecurityGroup(this, 'FunctionsSecurityGroup', {
        vpc: this.vpc,
        description: 'echomq-lambda functions: egress only to the cache and the AWS endpoints',
        allowAllOutbound: false,
      });
    this.functionsSecurityGroups =
      firstUserGroup === undefined ? [this.functionsSecurityGroup] : userGroups;

    if (firstUserGroup === undefined && !props.interfaceEndpoints) {
      // The VPC reaches SQS and Secrets Manager its own way (its endpoints or a NAT).
      this.functionsSecurityGroup.addEgressRule(
        ec2.Peer.anyIpv4(),
        ec2.Port.tcp(443),
        'echomq-lambda functions to SQS and Secrets Manager through the VPC',
      );
    }

    let secrets: ec2.InterfaceVpcEndpoint | undefined;
    if (props.interfaceEndpoints) {
      const services = {
        Sqs: ec2.InterfaceVpcEndpointAwsService.SQS,
        SecretsManager: ec2.InterfaceVpcEndpointAwsService.SECRETS_MANAGER,
      };
      for (const [name, service] of Object.entries(services)) {
        const endpoint = new ec2.InterfaceVpcEndpoint(this, `${name}Endpoint`, {
          vpc: this.vpc,
          service,
          subnets: this.functionSubnets,
          privateDnsEnabled: true,
          open: false,
        });
        endpoint.connections.allowDefaultPortFrom(this.functionsSecurityGroup);
        this.endpoints.push(endpoint);
        if (name === 'SecretsManager') secrets = endpoint;
      }
    }
    this.secretsManagerEndpoint = secrets;
  }
}
