import * as ec2 from 'aws-cdk-lib/aws-ec2';
import type { Construct } from 'constructs';
import type { CacheNetwork } from '../network.js';

/**
 * The nodes reach S3 (packages, assets, the wait condition URL), Secrets Manager and Session
 * Manager without a route out of the VPC. The network's Secrets Manager endpoint admits them;
 * the others are made only where the construct makes the interface endpoints, in a VPC made
 * in the same app (a VPC without them, or imported, brings its own way out).
 */
export function addNodeEndpoints(
  scope: Construct,
  network: CacheNetwork,
  nodes: ec2.SecurityGroup,
): void {
  network.secretsManagerEndpoint?.connections.allowDefaultPortFrom(nodes);
  // A VPC made in this app takes gateway endpoints; an imported one brings its own way out.
  if (network.endpoints.length === 0 || !(network.vpc instanceof ec2.Vpc)) return;
  new ec2.GatewayVpcEndpoint(scope, 'S3Endpoint', {
    vpc: network.vpc,
    service: ec2.GatewayVpcEndpointAwsService.S3,
    subnets: [network.cacheSubnets],
  });
  const sessionManager = {
    SsmEndpoint: ec2.InterfaceVpcEndpointAwsService.SSM,
    SsmMessagesEndpoint: ec2.InterfaceVpcEndpointAwsService.SSM_MESSAGES,
    Ec2MessagesEndpoint: ec2.InterfaceVpcEndpointAwsService.EC2_MESSAGES,
  };
  for (const [name, service] of Object.entries(sessionManager)) {
    const endpoint = new ec2.InterfaceVpcEndpoint(scope, name, {
      vpc: network.vpc,
      service,
      subnets: network.cacheSubnets,
      privateDnsEnabled: true,
      open: false,
    });
    endpoint.connections.allowDefaultPortFrom(nodes);
  }
}
