/**
 * The stack of the repository's own app (cdk.json): a VPC of its own without NAT (or the
 * user's, named by id with cache=existing), one EchoMq with what context chose, and the
 * outputs a platform team wires to. The deployment is checked as a whole before anything is built.
 */
import { CfnOutput, Fn, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { EchoMqCache } from '../cache/echomq-cache.js';
import { DEFAULT_CACHE_KIND } from '../cache/registry.js';
import { EchoMq } from '../constructs/echomq.js';
import {
  checkedDeployment,
  type EchoMqDeployment,
  type ResolvedDeployment,
  type ResolvedNetwork,
} from '../deployment/deployment.js';

export interface EchoMqAppStackProps extends StackProps {
  /**
   * What this deployment chooses.
   * @default every field's documented default (ElastiCache, IAM)
   */
  readonly deployment?: EchoMqDeployment;
  /**
   * A VPC to deploy into.
   * @default a new VPC without NAT (deployment.network)
   */
  readonly vpc?: ec2.IVpc;
}

const FUNCTIONS_SUBNETS = 'functions';
const CACHE_SUBNETS = 'cache';

export class EchoMqAppStack extends Stack {
  readonly echoMq: EchoMq;

  constructor(scope: Construct, id: string, props: EchoMqAppStackProps = {}) {
    super(scope, id, {
      description: 'echomq-lambda: API Gateway and SQS admission into EchoMQ queues on Valkey',
      ...props,
    });
    const input = props.deployment ?? {};
    const deployment = checkedDeployment(input);
    const vpc = new AppNetwork(this, 'Network', { deployment, vpc: props.vpc });

    // 'Default' adds nothing to the logical ids: they stay those of the stack before the construct.
    this.echoMq = new EchoMq(this, 'Default', {
      vpc: vpc.vpc,
      vpcSubnets: vpc.functionSubnets,
      securityGroups: vpc.securityGroups,
      cache: EchoMqCache.fromSpec(input.cache ?? { kind: DEFAULT_CACHE_KIND }, vpc.cacheSubnets),
      settings: input.settings,
      tracing: deployment.tracing,
      interfaceEndpoints: deployment.network.interfaceEndpoints,
      ...(input.http === undefined ? {} : { http: input.http }),
      ...(input.sqs === undefined ? {} : { sqs: input.sqs }),
      options: {
        runtime: input.runtime,
        logRetentionDays: input.logRetentionDays,
        keepLogsOnDelete: input.keepLogsOnDelete,
        passwordRotationDays: input.passwordRotationDays,
        alarmTopicArn: input.alarmTopicArn,
        bundleDir: input.bundleDir,
      },
    });
    this.outputs();
  }

  get deployment(): ResolvedDeployment {
    return this.echoMq.deployment;
  }

  private outputs(): void {
    const { echoMq } = this;
    const outputs: Record<string, [string, string | undefined]> = {
      ApiUrl: ['Base URL of the HTTP API (POST {url}queues/{queue}/jobs)', echoMq.http?.url],
      QueueUrl: ['SQS queue whose messages become jobs', echoMq.queue?.queueUrl],
      DeadLetterQueueUrl: [
        'SQS dead-letter queue of permanently failed records',
        echoMq.deadLetterQueue?.queueUrl,
      ],
      CacheEndpoint: [
        `Valkey endpoint the functions use (${echoMq.cache.kind})`,
        echoMq.cacheEndpoint,
      ],
      HttpFunctionArn: ['The HTTP function', echoMq.httpFunction?.functionArn],
      SqsFunctionArn: ['The SQS function', echoMq.sqsFunction?.functionArn],
      FunctionsSecurityGroupId: [
        "The functions' security group: admit it on a cache's port",
        echoMq.functionsSecurityGroup.securityGroupId,
      ],
    };
    for (const [id, [description, value]] of Object.entries(outputs)) {
      if (value !== undefined) new CfnOutput(this, id, { description, value });
    }
  }
}

/**
 * The app's VPC: its own, isolated (two subnet groups, no NAT, rejected traffic logged), or
 * the user's by id, with the user's subnets and, where named, security groups.
 */
class AppNetwork extends Construct {
  readonly vpc: ec2.IVpc;
  readonly functionSubnets: ec2.SubnetSelection;
  readonly cacheSubnets: ec2.SubnetSelection;
  readonly securityGroups: ec2.ISecurityGroup[] | undefined;

  constructor(
    scope: Construct,
    id: string,
    props: { deployment: ResolvedDeployment; vpc: ec2.IVpc | undefined },
  ) {
    super(scope, id);
    const { deployment } = props;
    const network: ResolvedNetwork = deployment.network;
    if (props.vpc !== undefined) {
      this.vpc = props.vpc;
      this.functionSubnets = {};
      this.cacheSubnets = { subnetType: ec2.SubnetType.PRIVATE_ISOLATED };
    } else if (network.vpcId !== undefined) {
      // Ids from context: an import without a lookup, so synthesis stays offline.
      this.vpc = ec2.Vpc.fromVpcAttributes(this, 'UserVpc', {
        vpcId: network.vpcId,
        availabilityZones: Fn.getAzs(),
      });
      const subnets = network.subnetIds.map((subnetId, index) =>
        ec2.Subnet.fromSubnetId(this, `UserSubnet${index}`, subnetId),
      );
      this.functionSubnets = { subnets };
      this.cacheSubnets = { subnets };
    } else {
      const vpc = new ec2.Vpc(this, 'Vpc', {
        ipAddresses: ec2.IpAddresses.cidr(network.cidr),
        maxAzs: network.maxAzs,
        natGateways: 0,
        subnetConfiguration: [
          { name: FUNCTIONS_SUBNETS, subnetType: ec2.SubnetType.PRIVATE_ISOLATED, cidrMask: 24 },
          { name: CACHE_SUBNETS, subnetType: ec2.SubnetType.PRIVATE_ISOLATED, cidrMask: 24 },
        ],
      });
      const flowLogs = new logs.LogGroup(this, 'FlowLogs', {
        retention: deployment.logRetentionDays,
        removalPolicy: deployment.keepLogsOnDelete ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
      });
      vpc.addFlowLog('FlowLog', {
        destination: ec2.FlowLogDestination.toCloudWatchLogs(flowLogs),
        trafficType: ec2.FlowLogTrafficType.REJECT,
      });
      this.vpc = vpc;
      this.functionSubnets = { subnetGroupName: FUNCTIONS_SUBNETS };
      this.cacheSubnets = { subnetGroupName: CACHE_SUBNETS };
    }
    this.securityGroups =
      network.securityGroupIds.length === 0
        ? undefined
        : network.securityGroupIds.map((groupId, index) =>
            // Not mutable: the user's rules are the user's; the stack adds none to them.
            ec2.SecurityGroup.fromSecurityGroupId(this, `UserSecurityGroup${index}`, groupId, {
              mutable: false,
            }),
          );
  }
}
