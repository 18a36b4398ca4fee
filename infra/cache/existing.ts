/**
 * A Valkey endpoint the stack does not own: any Valkey 7.2 or later, MemoryDB included. The
 * functions run EMQ_EXECUTOR=auto: the native family where every primary loads the EchoMQ
 * module, else the function family, decided at connect; the operator's user needs that
 * family's rules (src/access-rules.ts). The stack only opens egress to its ports and, when a
 * secret is named, lets the functions read it.
 */
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import type * as iam from 'aws-cdk-lib/aws-iam';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct, type IDependable } from 'constructs';
import type { ExistingCacheSettings } from '../settings.js';
import type { CacheConnectionEnvironment, EchoMqCache } from './cache.js';
import { EXECUTOR_OF } from './executor.js';

export interface ExistingValkeyProps {
  /** Normalised URLs (scheme://host:port), as resolveSettings returns them. */
  readonly settings: Required<Omit<ExistingCacheSettings, 'secretArn'>> &
    Pick<ExistingCacheSettings, 'secretArn'>;
}

export class ExistingValkey extends Construct implements EchoMqCache {
  readonly kind = 'existing';
  readonly connectionEnvironment: CacheConnectionEnvironment;
  readonly endpoint: string;
  /** Nothing to wait for: the endpoint exists before the stack. */
  readonly ready: IDependable = this;
  readonly credentials: secretsmanager.ISecret | undefined;
  private readonly ports: number[];

  constructor(scope: Construct, id: string, props: ExistingValkeyProps) {
    super(scope, id);
    const { settings } = props;
    this.credentials =
      settings.secretArn === undefined
        ? undefined
        : secretsmanager.Secret.fromSecretCompleteArn(this, 'Credentials', settings.secretArn);
    this.ports = [...new Set(settings.urls.map((url) => Number(new URL(url).port)))];
    this.endpoint = settings.urls.map((url) => new URL(url).host).join(',');
    this.connectionEnvironment = {
      EMQ_URL: settings.urls.join(','),
      EMQ_CLUSTER: settings.cluster ? 'true' : 'false',
      EMQ_EXECUTOR: EXECUTOR_OF.existing,
      ...(this.credentials === undefined ? {} : { EMQ_SECRET_ARN: this.credentials.secretArn }),
    };
  }

  allowConnectionsFrom(group: ec2.ISecurityGroup): void {
    // The addresses behind the endpoint are not known at synthesis; the port is.
    for (const port of this.ports) {
      group.addEgressRule(ec2.Peer.anyIpv4(), ec2.Port.tcp(port), 'echomq-lambda to Valkey');
    }
  }

  grantCredentials(grantee: iam.IGrantable): void {
    this.credentials?.grantRead(grantee);
  }

  /** The operator's one secret serves the installer too: this kind creates no users. */
  readonly installerSecretArn = undefined;

  grantInstallerCredentials(grantee: iam.IGrantable): void {
    this.grantCredentials(grantee);
  }
}
