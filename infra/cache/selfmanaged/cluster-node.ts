/**
 * One node of the self-managed cluster: an instance at a fixed private address in its AZ, an
 * encrypted data volume that outlives the instance (nodes.conf and the AOF live there), and
 * the CloudWatch alarms that recover the instance in place (same id, address and volumes) when
 * its host fails, or reboot it when the OS stops answering.
 */
import { Duration, type RemovalPolicy, Size, Validations } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import type * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import type { CpuArchitecture } from './module-artifact.js';

/** The data volume's device name; AL2023's udev rules link it to the NVMe device. */
export const DATA_DEVICE = '/dev/sdf';

export interface ClusterNodeProps {
  readonly vpc: ec2.IVpc;
  readonly subnet: ec2.ISubnet;
  readonly address: string;
  /** Bumped when an operator replaced the instance: a new logical id makes a new instance. */
  readonly generation: number;
  readonly instanceType: string;
  readonly architecture: CpuArchitecture;
  readonly securityGroup: ec2.ISecurityGroup;
  readonly role: iam.IRole;
  readonly userData: ec2.UserData;
  readonly dataVolumeGiB: number;
  /** What becomes of the data volume when the stack is deleted. */
  readonly removalPolicy: RemovalPolicy;
}

export class ClusterNode extends Construct {
  readonly instance: ec2.Instance;
  readonly dataVolume: ec2.Volume;

  constructor(scope: Construct, id: string, props: ClusterNodeProps) {
    super(scope, id);
    const generation = props.generation === 0 ? '' : `Gen${props.generation}`;
    this.instance = new ec2.Instance(this, `Instance${generation}`, {
      vpc: props.vpc,
      vpcSubnets: { subnets: [props.subnet] },
      privateIpAddress: props.address,
      instanceType: new ec2.InstanceType(props.instanceType),
      // Resolved by EC2 when an instance launches, so a new AL2023 release never asks
      // CloudFormation to replace a node (its fixed address would forbid that).
      machineImage: ec2.MachineImage.resolveSsmParameterAtLaunch(
        `/aws/service/ami-amazon-linux-latest/al2023-ami-kernel-default-${props.architecture}`,
      ),
      securityGroup: props.securityGroup,
      role: props.role,
      userData: props.userData,
      detailedMonitoring: true,
      associatePublicIpAddress: false,
      blockDevices: [
        {
          deviceName: '/dev/xvda',
          volume: ec2.BlockDeviceVolume.ebs(10, {
            encrypted: true,
            volumeType: ec2.EbsDeviceVolumeType.GP3,
          }),
        },
      ],
    });
    // IMDSv2 only. Not `requireImdsv2`: its launch template gets a fixed name, which collides
    // between the nodes; this one is named by CloudFormation.
    const metadata = new ec2.CfnLaunchTemplate(this, 'MetadataOptions', {
      launchTemplateData: {
        metadataOptions: { httpTokens: 'required', httpPutResponseHopLimit: 1 },
      },
    });
    this.instance.instance.launchTemplate = {
      launchTemplateId: metadata.ref,
      version: metadata.attrLatestVersionNumber,
    };
    Validations.of(this.instance).acknowledge({
      id: 'CloudFormation-Validate::E1152',
      reason:
        'EC2 resolves resolve:ssm:<parameter> to an AMI id at launch (RunInstances accepts it); the schema only knows ami-... literals.',
    });
    Validations.of(this.instance).acknowledge({
      id: 'AwsSolutions-EC29',
      reason:
        'Termination protection would make the stack impossible to delete; the data lives on a separate volume with its own removal policy, and a replaced instance rejoins from it.',
    });

    this.dataVolume = new ec2.Volume(this, 'Data', {
      availabilityZone: props.subnet.availabilityZone,
      size: Size.gibibytes(props.dataVolumeGiB),
      volumeType: ec2.EbsDeviceVolumeType.GP3,
      encrypted: true,
      removalPolicy: props.removalPolicy,
    });
    // Each node's address is fixed in its subnet, so the node and its volume are placed in
    // that subnet's zone: the zone is read from the VPC, not written in by hand.
    for (const placed of [this.instance, this.dataVolume]) {
      Validations.of(placed).acknowledge({
        id: 'CloudFormation-Validate::W3010',
        reason:
          "A node and its data volume live in the zone of the subnet that holds the node's fixed address; the zone comes from the VPC's own subnets.",
      });
    }
    new ec2.CfnVolumeAttachment(this, `DataAttachment${generation}`, {
      instanceId: this.instance.instanceId,
      volumeId: this.dataVolume.volumeId,
      device: DATA_DEVICE,
    });

    const statusCheck = (metricName: string) =>
      new cloudwatch.Metric({
        namespace: 'AWS/EC2',
        metricName,
        dimensionsMap: { InstanceId: this.instance.instanceId },
        statistic: 'Maximum',
        period: Duration.minutes(1),
      });
    new cloudwatch.Alarm(this, 'HostFailed', {
      alarmDescription:
        'echomq-lambda Valkey node: host failed; EC2 recovers the instance in place',
      metric: statusCheck('StatusCheckFailed_System'),
      threshold: 1,
      evaluationPeriods: 2,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    }).addAlarmAction(new actions.Ec2Action(actions.Ec2InstanceAction.RECOVER));
    new cloudwatch.Alarm(this, 'InstanceFailed', {
      alarmDescription: 'echomq-lambda Valkey node: the OS stopped answering; EC2 reboots it',
      metric: statusCheck('StatusCheckFailed_Instance'),
      threshold: 1,
      evaluationPeriods: 3,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    }).addAlarmAction(new actions.Ec2Action(actions.Ec2InstanceAction.REBOOT));
  }
}
