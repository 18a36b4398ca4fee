/**
 * The network the functions and the cache share: a VPC without NAT or internet gateway, the
 * functions' security group, and interface endpoints for the only AWS APIs a function calls
 * from inside the VPC (SQS for the DLQ, Secrets Manager for the cache credentials).
 */
import { RemovalPolicy } from 'aws-cdk-lib';
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
  /** Shared by every function; the cache and the endpoints admit this group only. */
  readonly functionsSecurityGroup: ec2.SecurityGroup;
  /** The interface endpoints, when settings.network.interfaceEndpoints is on. */
  readonly endpoints: ec2.InterfaceVpcEndpoint[] = [];

  constructor(scope: Construct, id: string, props: EchoMqNetworkProps) {
    super(scope, id);
    const { settings } = props;
    if (props.vpc === undefined) {
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

    this.functionsSecurityGroup = new ec2.SecurityGroup(this, 'FunctionsSecurityGroup', {
      vpc: this.vpc,
      description: 'echomq-lambda functions: egress only to the cache and the AWS endpoints',
      allowAllOutbound: false,
    });

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
