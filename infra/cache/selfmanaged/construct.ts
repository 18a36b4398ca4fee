/**
 * A Valkey cluster on EC2 that loads the EchoMQ module, so the functions run the native
 * family with its per-write fence and paused guard (ElastiCache loads no modules).
 *
 * - Nodes: shards × (1 + replicas) instances, Graviton by default, one per node, spread over
 *   the cache subnets' AZs, each at a fixed private address (infra/cache/selfmanaged/layout.ts):
 *   the address is the node's identity in the cluster, in the TLS certificate and in the seeds
 *   the functions get, with no discovery service to run or reach.
 * - Each node installs Valkey from the Amazon Linux 2023 packages and loads the module from
 *   an S3 asset built from `moduleArtifact`; its data is on an encrypted EBS volume with AOF.
 * - TLS on every port (clients, replication, cluster bus) with a CA node 0 makes at first boot
 *   and keeps in Secrets Manager; ACL users as on ElastiCache (the functions' user, an admin
 *   for replication and operators, the default user switched off), passwords in Secrets
 *   Manager, read by the nodes at boot through their instance role; the functions' and the
 *   installer's rotate on the nodes (constructs/credential-rotation.ts).
 * - Node 0 creates the cluster and installs the wire identity on every primary, then signals a
 *   CloudFormation wait condition with the CA the functions must trust: the stack waits for a
 *   working cluster before anything connects to it.
 */

import { join } from 'node:path';
import {
  Annotations,
  CfnWaitCondition,
  CfnWaitConditionHandle,
  Fn,
  RemovalPolicy,
  Stack,
  Token,
  Validations,
} from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Asset } from 'aws-cdk-lib/aws-s3-assets';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { INSTALLER_RULES_NATIVE } from '../../../src/families/access-rules.js';
import type { FamilyChoice } from '../../../src/settings/config.js';
import { packageDir } from '../../shared/package-dir.js';
import { keptAs } from '../../shared/removal.js';
import type { CacheConnectionEnvironment } from '../cache.js';
import type { CacheNetwork } from '../network.js';
import { OwnedCache } from '../owned.js';
import { ClusterNode, DATA_DEVICE } from './cluster-node.js';
import { addNodeEndpoints } from './endpoints.js';
import { placeNodes } from './layout.js';
import { instanceArchitecture, moduleArchitecture } from './module-artifact.js';
import { createNodeSecrets } from './node-secrets.js';
import type { ResolvedSelfManaged } from './spec.js';
import { nodeUserData } from './user-data.js';

export interface SelfManagedValkeyProps {
  readonly spec: ResolvedSelfManaged;
  readonly network: CacheNetwork;
  /** The identity the nodes load the module with: the functions' EMQ_WIRE. */
  readonly wire: string;
  readonly family: FamilyChoice;
  /**
   * What becomes of the data volumes when the stack is deleted.
   * @default a snapshot of each
   */
  readonly removalPolicy?: RemovalPolicy | undefined;
}

export { APP_USERNAME, INSTALLER_USERNAME } from './node-secrets.js';

/**
 * The folder the nodes run (bootstrap.sh and the scripts it runs and sources), found from the
 * package's folder: the constructs run bundled from dist/ once installed, and the package ships
 * this folder at the same path.
 */
export const SCRIPTS_PATH = join(packageDir(), 'infra', 'cache', 'selfmanaged', 'scripts');

/** Seconds CloudFormation waits for node 0's signal once every instance runs. */
export const CLUSTER_CREATE_TIMEOUT_SECONDS = 2_700;

export interface SelfManagedConnectionEnvironment extends CacheConnectionEnvironment {
  /** Base64 of the cluster's CA certificate (PEM), from node 0's signal. */
  readonly EMQ_TLS_CA: string;
}

export class SelfManagedValkey extends OwnedCache {
  readonly kind = 'selfmanaged';
  /** `{"username","password"}` of the functions' user (the nodes read it at boot). */
  readonly appCredentials: secretsmanager.Secret;
  /** `{"username","password"}` of the admin user. */
  readonly adminCredentials: secretsmanager.Secret;
  /** `{"ca","cert","key"}`, filled by node 0 at first boot. */
  readonly tlsMaterial: secretsmanager.Secret;
  readonly role: iam.Role;
  /** The module the nodes load (from moduleArtifact) and the scripts they run. */
  readonly moduleAsset: Asset;
  readonly scriptsAsset: Asset;
  readonly nodes: ClusterNode[];
  /** The cluster-create step: node 0 signals it once the cluster serves with the fence installed. */
  readonly clusterCreated: CfnWaitCondition;

  constructor(scope: Construct, id: string, props: SelfManagedValkeyProps) {
    const { spec, network } = props;
    const vpc = network.vpc;
    super(scope, id, {
      vpc,
      description: 'echomq-lambda Valkey nodes: admits the functions and the nodes themselves',
      clientPorts: ec2.Port.tcp(spec.port),
      clientPortsDescription: 'echomq-lambda functions to Valkey',
    });

    const secrets = createNodeSecrets(this);
    this.useCredentials(secrets);
    this.appCredentials = secrets.credentials;
    this.adminCredentials = secrets.adminCredentials;
    this.tlsMaterial = secrets.tlsMaterial;
    const nodesPeer = this.securityGroup.connections;
    nodesPeer.allowInternally(
      ec2.Port.tcp(spec.port),
      'Valkey: replication and cluster creation between nodes',
    );
    nodesPeer.allowInternally(ec2.Port.tcp(spec.port + 10_000), 'Valkey cluster bus between nodes');
    // The VPC has no route out: 443 reaches only the S3, Secrets Manager and SSM endpoints.
    this.securityGroup.addEgressRule(
      ec2.Peer.anyIpv4(),
      ec2.Port.tcp(443),
      'AWS endpoints: packages and assets (S3), secrets, Session Manager',
    );
    addNodeEndpoints(this, network, this.securityGroup);

    this.moduleAsset = new Asset(this, 'Module', { path: spec.moduleArtifact });
    this.scriptsAsset = new Asset(this, 'Scripts', { path: SCRIPTS_PATH });
    const { moduleAsset, scriptsAsset } = this;
    const architecture = instanceArchitecture(spec.instanceType);
    const built = moduleArchitecture(spec.moduleArtifact);
    if (built !== architecture) {
      Annotations.of(this).addWarningV2(
        'echomq:module-architecture',
        `moduleArtifact is built for ${built ?? 'an unknown CPU'} but ${spec.instanceType} runs ${architecture}: the nodes will fail to load it.`,
      );
    }

    this.role = new iam.Role(this, 'NodeRole', {
      description:
        'echomq-lambda Valkey nodes: read the assets and secrets, publish the TLS material',
      assumedBy: new iam.ServicePrincipal('ec2.amazonaws.com'),
      managedPolicies: [iam.ManagedPolicy.fromAwsManagedPolicyName('AmazonSSMManagedInstanceCore')],
    });
    // The two objects, not the bucket-wide read an asset grants: the nodes fetch nothing else.
    this.role.addToPolicy(
      new iam.PolicyStatement({
        actions: ['s3:GetObject'],
        resources: [moduleAsset, scriptsAsset].map((asset) =>
          Stack.of(this).formatArn({
            service: 's3',
            region: '',
            account: '',
            resource: asset.s3BucketName,
            resourceName: asset.s3ObjectKey,
          }),
        ),
      }),
    );
    this.appCredentials.grantRead(this.role);
    this.installerCredentials.grantRead(this.role);
    this.adminCredentials.grantRead(this.role);
    this.tlsMaterial.grantRead(this.role);
    this.tlsMaterial.grantWrite(this.role);
    this.acknowledgeRoleFindings();

    const subnets = vpc.selectSubnets({ ...network.cacheSubnets, onePerAz: true }).subnets;
    const placements = placeNodes(spec.shards, spec.replicasPerShard, subnets.map(cidrOf));
    const seeds = placements.map((node) => `${node.address}:${spec.port}`);
    const handle = new CfnWaitConditionHandle(this, 'ClusterCreatedHandle');
    const common = {
      EMQ_NODES: seeds.join(' '),
      EMQ_SHARDS: String(spec.shards),
      EMQ_REPLICAS: String(spec.replicasPerShard),
      EMQ_WIRE: props.wire,
      EMQ_MODULE_URI: moduleAsset.s3ObjectUrl,
      EMQ_APP_SECRET_ARN: this.appCredentials.secretArn,
      EMQ_ADMIN_SECRET_ARN: this.adminCredentials.secretArn,
      EMQ_TLS_SECRET_ARN: this.tlsMaterial.secretArn,
      EMQ_ACCESS_STRING: spec.accessString,
      EMQ_INSTALLER_SECRET_ARN: this.installerCredentials.secretArn,
      EMQ_INSTALLER_ACCESS_STRING: INSTALLER_RULES_NATIVE,
      EMQ_DATA_DEVICE: DATA_DEVICE,
      AWS_DEFAULT_REGION: Stack.of(this).region,
    };

    this.nodes = placements.map((placement) => {
      const node = new ClusterNode(this, `Node${placement.index}`, {
        vpc,
        subnet: subnets[placement.subnet] as ec2.ISubnet,
        address: placement.address,
        generation: spec.replacedNodes.filter((index) => index === placement.index).length,
        instanceType: spec.instanceType,
        architecture,
        securityGroup: this.securityGroup,
        role: this.role,
        userData: nodeUserData({
          environment: {
            EMQ_NODE_INDEX: String(placement.index),
            ...common,
            ...(placement.index === 0 ? { EMQ_SIGNAL_URL: handle.ref } : {}),
          },
          scriptsBucket: scriptsAsset.s3BucketName,
          scriptsKey: scriptsAsset.s3ObjectKey,
          createsCluster: placement.index === 0,
        }),
        dataVolumeGiB: spec.dataVolumeGiB,
        removalPolicy: keptAs(props.removalPolicy, RemovalPolicy.SNAPSHOT),
      });
      return node;
    });
    // One node at a time: an update that restarts every node (a new module, a new environment)
    // then never stops a primary and its replicas together.
    this.nodes.forEach((node, index) => {
      const previous = this.nodes[index - 1];
      if (previous !== undefined) node.instance.node.addDependency(previous.instance);
    });

    this.clusterCreated = new CfnWaitCondition(this, 'ClusterCreated', {
      handle: handle.ref,
      count: 1,
      timeout: String(CLUSTER_CREATE_TIMEOUT_SECONDS),
    });
    for (const node of this.nodes) this.clusterCreated.node.addDependency(node);

    const tls: Pick<SelfManagedConnectionEnvironment, 'EMQ_TLS_CA'> = {
      // Data is the JSON {"emq-cluster":"<base64 CA>"}; base64 holds no quote.
      EMQ_TLS_CA: Fn.select(3, Fn.split('"', Token.asString(this.clusterCreated.attrData))),
    };
    this.connectTo(seeds, props.family, tls);
  }

  override get connectionEnvironment(): SelfManagedConnectionEnvironment {
    return super.connectionEnvironment as SelfManagedConnectionEnvironment;
  }

  private acknowledgeRoleFindings(): void {
    Validations.of(this.role).acknowledge({
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/AmazonSSMManagedInstanceCore]',
      reason:
        'The AWS-maintained minimum for Session Manager, the only way in for operators (no SSH, no bastion): checking and replacing nodes needs a shell.',
    });
  }
}

/** A subnet's CIDR block; an imported subnet may not know it, and then no address can be fixed. */
function cidrOf(subnet: ec2.ISubnet): string {
  try {
    if (!Token.isUnresolved(subnet.ipv4CidrBlock)) return subnet.ipv4CidrBlock;
  } catch {}
  throw new Error(
    `cache=selfmanaged fixes each node's address in its subnet, so the CIDR block of subnet ${subnet.node.path} must be known at synthesis (Vpc.fromLookup, or ipv4CidrBlock in Vpc.fromVpcAttributes).`,
  );
}
