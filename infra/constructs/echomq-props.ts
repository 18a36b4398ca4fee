/**
 * What an EchoMq is told (docs/props.md; docs/deploy.md, "Into an existing account"): one level
 * per concept. `http` and `sqs` say both where each face is served (the team's API or queues,
 * else new ones) and how (auth, throttling, batching, timeouts); the override props are merged
 * over the construct's defaults in the AWS Solutions Constructs manner.
 */
import type { RemovalPolicy } from 'aws-cdk-lib';
import type * as ec2 from 'aws-cdk-lib/aws-ec2';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { SettingValues } from '../../src/settings/settings-table.js';
import type { EchoMqCache } from '../cache/echomq-cache.js';
import type { RuntimeName, SqsOptions } from '../deployment/deployment.js';
import type { EchoMqHttp } from './http-face.js';
import type { EchoMqRedelivery } from './queue-redelivery.js';
import type { EchoMqRollout } from './rollout.js';

/**
 * The SQS face: the team's queue (and DLQ: else one the construct makes), or new ones; and the
 * SQS function's and event source's options, which apply to either.
 */
export interface EchoMqSqs extends SqsOptions {
  /**
   * The team's queue whose messages become jobs.
   * @default a new one (`queueProps`)
   */
  readonly queue?: sqs.IQueue;
  /**
   * The team's DLQ.
   * @default a new one (`deadLetterQueueProps`)
   */
  readonly deadLetterQueue?: sqs.IQueue;
  /**
   * An imported `queue`'s visibility timeout, maxReceiveCount and retention, which synthesis
   * cannot read: dedupeTtlMs must outlast them. A `Queue` of the same app is read as it is.
   */
  readonly redelivery?: EchoMqRedelivery;
}

/** What the functions and their logs are like beyond the faces; every field has a default. */
export interface EchoMqOptions {
  /**
   * Lambda runtime of every function.
   * @default `'nodejs22.x'`
   */
  readonly runtime?: RuntimeName;
  /**
   * Days every log group keeps events.
   * @default `30`
   */
  readonly logRetentionDays?: number;
  /**
   * Keep log groups when the stack is deleted.
   * @default `false`
   */
  readonly keepLogsOnDelete?: boolean;
  /**
   * The KMS key every log group the construct makes is encrypted with (the `encryptionKey` of
   * aws-cdk-lib's `LogGroup`). A key of the same app gets the statement CloudWatch Logs needs in
   * its policy; an imported key's policy must hold it already (docs/kms.md).
   * @default none (CloudWatch Logs' own encryption)
   */
  readonly logGroupEncryptionKey?: kms.IKey;
  /**
   * Days between rotations of the functions' and installer's passwords, where the construct
   * creates the cache (ElastiCache, Serverless, MemoryDB, self-managed), from 1 to 1000; `0`
   * turns rotation off.
   * @default `30`
   */
  readonly passwordRotationDays?: number;
  /**
   * SNS topic ARN the alarms notify.
   * @default none
   */
  readonly alarmTopicArn?: string;
  /**
   * Folder of the prebuilt bundles (`http/`, `sqs/`, `fence/`, `rotate/`).
   * @default the package's
   */
  readonly bundleDir?: string;
}

/**
 * Merged over the HTTP and SQS functions' defaults (the bundle's code and handler stay the
 * construct's; `environment` is merged key by key and judged by the runtime's own loadConfig).
 */
export type EchoMqFunctionProps = Partial<Omit<lambda.FunctionProps, 'code' | 'handler'>>;

export interface EchoMqProps {
  /** The VPC the functions (and a cache the construct creates) run in. */
  readonly vpc: ec2.IVpc;
  /**
   * The functions' subnets.
   * @default the VPC's private subnets
   */
  readonly vpcSubnets?: ec2.SubnetSelection;
  /**
   * The functions' security groups, used as they are.
   * @default one the construct makes
   */
  readonly securityGroups?: ec2.ISecurityGroup[];
  /** The cache: one a factory of `EchoMqCache` makes, such as `EchoMqCache.elastiCache()` or `EchoMqCache.existing({...})`. */
  readonly cache: EchoMqCache;
  /**
   * Where and how the HTTP face is served: `{ api }`, `{ restApi, resource? }`, `{ functionUrl:
   * true }`, or options alone for a new HTTP API; `false`: no HTTP face.
   * @default a new HTTP API, IAM auth
   */
  readonly http?: EchoMqHttp | false;
  /**
   * The SQS face's queues and options; `false`: no SQS face.
   * @default a new queue and DLQ
   */
  readonly sqs?: EchoMqSqs | false;
  /** The EMQ_* settings (src/settings/settings-table.ts): defaultQueue, ackReplicas, ... */
  readonly settings?: SettingValues;
  /**
   * What becomes of the cache and queues the construct creates on delete or replacement. `RETAIN`
   * keeps the caches too, and with them everything they refer to (users, secrets, security groups,
   * and subnets and VPC where they are in the same stack); `DESTROY` deletes them all with the
   * stack.
   * @default the queues retained, and of a cache a final snapshot only (of an ElastiCache replication group, a Serverless cache, a MemoryDB cluster, self-managed data volumes)
   */
  readonly removalPolicy?: RemovalPolicy;
  /**
   * X-Ray active tracing on the functions (X-Ray's default sampling).
   * @default `true`
   */
  readonly tracing?: boolean;
  /**
   * Make SQS and Secrets Manager interface endpoints in the functions' subnets.
   * @default `false`: the VPC reaches them its own way (NAT or its endpoints), and the functions' group sends HTTPS out
   */
  readonly interfaceEndpoints?: boolean;
  /** Merged over the HTTP and SQS functions' defaults. */
  readonly functionProps?: EchoMqFunctionProps;
  /** Merged over the new source queue's defaults; refused with the team's `sqs.queue`. */
  readonly queueProps?: sqs.QueueProps;
  /** Merged over the new DLQ's defaults; refused with the team's `sqs.deadLetterQueue`. */
  readonly deadLetterQueueProps?: sqs.QueueProps;
  /**
   * The functions' runtime, logs and alarms, and the bundles they deploy.
   * @default each field's default
   */
  readonly options?: EchoMqOptions;
  /**
   * Shift each release to the alias `live` gradually (CodeDeploy canary or linear), rolled back by
   * the construct's alarms; only for a release that keeps the wire identity (the deploy refuses one
   * that changes it: docs/upgrading.md).
   * @default all at once
   */
  readonly rollout?: EchoMqRollout;
}
