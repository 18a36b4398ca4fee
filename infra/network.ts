/**
 * The network the functions and the cache share: a VPC without NAT or internet gateway, the
 * functions' security group, and interface endpoints for the only AWS APIs a function calls
 * from inside the VPC (SQS for the DLQ, Secrets Manager for the cache credentials).
 */
import { Fn, RemovalPolicy } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { ResolvedSettings } from './settings.js';

export interface EchoMqNetworkProps {
  readonly settings: ResolvedSettings;
  /** A VPC to use instead of creating one. Default: a new VPC (settings.network). */
  readonly vpc?: ec2.IVpc;
}

const FUNCTIONS_SUBNETS = 'functions';
const CACHE_SUBNETS = 'cache';

export class EchoMqNetwork extends Construct {
  readonly vpc: ec2.IVpc;
  /** Where the functions run. */
  readonly functionSubnets: ec2.SubnetSelection;
  /** Where the cache nodes live. */
  readonly cacheSubnets: ec2.SubnetSelection;
  /**
   * Shared by every function; the cache and the endpoints admit this group only. In the
   * user's VPC with securityGroupIds, the first of the user's groups (the stack changes none).
   */
  readonly functionsSecurityGroup: ec2.ISecurityGroup;
  /** Every group the functions carry. */
  readonly functionsSecurityGroups: ec2.ISecurityGroup[];
  /** The interface endpoints, when settings.network.interfaceEndpoints is on. */
  readonly endpoints: ec2.InterfaceVpcEndpoint[] = [];

  constructor(scope: Construct, id: string, props: EchoMqNetworkProps) {
    super(scope, id);
    const { settings } = props;
    const userVpc = settings.network.vpcId;
    if (props.vpc === undefined && userVpc !== undefined) {
      // Ids from context: an import without a lookup, so synthesis stays offline.
      this.vpc = ec2.Vpc.fromVpcAttributes(this, 'UserVpc', {
        vpcId: userVpc,
        availabilityZones: Fn.getAzs(),
      });
      const subnets = settings.network.subnetIds.map((subnetId, index) =>
        ec2.Subnet.fromSubnetId(this, `UserSubnet${index}`, subnetId),
      );
      this.functionSubnets = { subnets };
      this.cacheSubnets = { subnets };
    } else if (props.vpc === undefined) {
      const vpc = new ec2.Vpc(this, 'Vpc', {
        ipAddresses: ec2.IpAddresses.cidr(settings.network.cidr),
        maxAzs: settings.network.maxAzs,
        natGateways: 0,
        subnetConfiguration: [
          { name: FUNCTIONS_SUBNETS, subnetType: ec2.SubnetType.PRIVATE_ISOLATED, cidrMask: 24 },
          { name: CACHE_SUBNETS, subnetType: ec2.SubnetType.PRIVATE_ISOLATED, cidrMask: 24 },
        ],
      });
      const flowLogs = new logs.LogGroup(this, 'FlowLogs', {
        retention: settings.logRetentionDays,
        removalPolicy: settings.keepLogsOnDelete ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
      });
      vpc.addFlowLog('FlowLog', {
        destination: ec2.FlowLogDestination.toCloudWatchLogs(flowLogs),
        trafficType: ec2.FlowLogTrafficType.REJECT,
      });
      this.vpc = vpc;
      this.functionSubnets = { subnetGroupName: FUNCTIONS_SUBNETS };
      this.cacheSubnets = { subnetGroupName: CACHE_SUBNETS };
    } else {
      this.vpc = props.vpc;
      this.functionSubnets = {};
      this.cacheSubnets = { subnetType: ec2.SubnetType.PRIVATE_ISOLATED };
    }

    const userGroups = settings.network.securityGroupIds.map((groupId, index) =>
      // Not mutable: the user's rules are the user's; the stack adds none to them.
      ec2.SecurityGroup.fromSecurityGroupId(this, `UserSecurityGroup${index}`, groupId, {
        mutable: false,
      }),
    );
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

    if (
      userVpc !== undefined &&
      firstUserGroup === undefined &&
      !settings.network.interfaceEndpoints
    ) {
      // The user's VPC reaches SQS and Secrets Manager its own way (its endpoints or a NAT).
      this.functionsSecurityGroup.addEgressRule(
        ec2.Peer.anyIpv4(),
        ec2.Port.tcp(443),
        'echomq-lambda functions to SQS and Secrets Manager through the VPC',
      );
    }

    if (settings.network.interfaceEndpoints) {
      const services = {
        Sqs: ec2.InterfaceVpcEndpointAwsService.SQS,
        SecretsManager: ec2.InterfaceVpcEndpointAwsService.SECRETS_MANAGER,
      };
      for (const [name, service] of Object.entries(services)) {
        // Created in this scope (not the VPC's) so that depending on the network covers them.
        const endpoint = new ec2.InterfaceVpcEndpoint(this, `${name}Endpoint`, {
          vpc: this.vpc,
          service,
          subnets: this.functionSubnets,
          privateDnsEnabled: true,
          open: false,
        });
        endpoint.connections.allowDefaultPortFrom(this.functionsSecurityGroup);
        this.endpoints.push(endpoint);
      }
    }
  }
}
