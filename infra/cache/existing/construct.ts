/**
 * A Valkey endpoint the construct does not own: any Valkey 7.2 or later, MemoryDB included. The
 * functions run the family the spec names (`auto` by default: the native family where
 * every primary loads the EchoMQ module, else the function family, decided at connect); the
 * operator's user needs that family's rules (src/families/access-rules.ts). The construct opens egress
 * to the endpoint's ports, admits the functions in the cache's security group where it is
 * given, and lets the functions read the secret or sign IAM tokens for the user. The installer
 * installs as the `installer` user it is given (the installer's rules); without one it
 * connects as the functions' user and only verifies (docs/deploy.md, "Into an existing account").
 */
import { ArnFormat, Stack } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct, type IDependable } from 'constructs';
import type { FamilyChoice } from '../../../src/settings/config.js';
import type { Resolved } from '../../shared/resolved.js';
import {
  type CacheConnectionEnvironment,
  type CacheIamAuth,
  type CacheTarget,
  type InstallerAccess,
  installerBySecret,
} from '../cache.js';
import { grantSecretRead } from '../secret-read.js';

/** ElastiCache IAM authentication to a cache the construct does not own. */
export interface ExistingIamAuth {
  /** The IAM-enabled user's id (its user name is the same). */
  readonly userId: string;
  /** The replication group id or the Serverless cache name. */
  readonly cacheName: string;
  /**
   * The cache is ElastiCache Serverless.
   * @default `false`
   */
  readonly serverless?: boolean;
}

/**
 * The deploy-time installer's own user on a cache the construct does not own, with the
 * installer's rules of its family (docs/security.md): a secret `{"username","password"}`
 * (`secretArn` from context), or ElastiCache IAM tokens.
 */
export interface ExistingInstaller {
  readonly secret?: secretsmanager.ISecret;
  readonly secretArn?: string;
  readonly iam?: ExistingIamAuth;
}

export interface ExistingSpec {
  readonly kind: 'existing';
  /**
   * The server, or cluster seeds: `rediss://host:port`, `redis://host:port`, or `host:port`
   * (read as `rediss://`). Required.
   */
  readonly urls: readonly string[];
  /**
   * The endpoint is a Valkey cluster.
   * @default `true`
   */
  readonly cluster?: boolean;
  /** A Secrets Manager secret `{"username","password"}`, by complete ARN (from context). */
  readonly secretArn?: string;
  /**
   * The same, as a construct (from code).
   * @default none (no AUTH)
   */
  readonly secret?: secretsmanager.ISecret;
  /** IAM tokens instead of a password (exclusive with a secret). */
  readonly iam?: ExistingIamAuth;
  /** The cache's security group: the construct admits the functions on the cache's ports. */
  readonly securityGroup?: ec2.ISecurityGroup;
  /**
   * The family of admission calls.
   * @default `auto` (decided at connect)
   */
  readonly family?: FamilyChoice;
  /**
   * The installer's own credentials: it then installs the identity and the library.
   * @default none; the installer connects as the functions' user and only verifies
   */
  readonly installer?: ExistingInstaller;
}

export type ResolvedExisting = Resolved<Pick<ExistingSpec, 'kind' | 'urls' | 'cluster'>> &
  Pick<ExistingSpec, 'secretArn' | 'secret' | 'iam' | 'securityGroup' | 'installer'> & {
    readonly family: FamilyChoice;
  };

export interface ExistingValkeyProps {
  /** Normalised URLs (scheme://host:port), as the kind's resolve returns them. */
  readonly spec: ResolvedExisting;
}

export class ExistingValkey extends Construct implements CacheTarget {
  readonly kind = 'existing';
  readonly connectionEnvironment: CacheConnectionEnvironment;
  readonly endpoint: string;
  /** Nothing to wait for but the rules this construct adds: the endpoint exists before it. */
  readonly ready: IDependable = this;
  readonly credentials: secretsmanager.ISecret | undefined;
  readonly iamAuth: CacheIamAuth | undefined;
  readonly installer: InstallerAccess;
  private readonly ports: number[];
  private readonly securityGroup: ec2.ISecurityGroup | undefined;

  constructor(scope: Construct, id: string, props: ExistingValkeyProps) {
    super(scope, id);
    const { spec } = props;
    this.credentials =
      spec.secret ??
      (spec.secretArn === undefined
        ? undefined
        : secretsmanager.Secret.fromSecretCompleteArn(this, 'Credentials', spec.secretArn));
    this.securityGroup = spec.securityGroup;
    this.ports = [...new Set(spec.urls.map((url) => Number(new URL(url).port)))];
    this.endpoint = spec.urls.map((url) => new URL(url).host).join(',');
    this.connectionEnvironment = {
      EMQ_URL: spec.urls.join(','),
      EMQ_CLUSTER: spec.cluster ? 'true' : 'false',
      EMQ_EXECUTOR: spec.family,
      ...(this.credentials === undefined ? {} : { EMQ_SECRET_ARN: this.credentials.secretArn }),
    };
    this.iamAuth = spec.iam === undefined ? undefined : existingIamAuth(this, spec.iam);
    this.installer = installerOf(this, spec.installer) ?? {
      mode: 'verify',
      environment: undefined,
      grant: (grantee) => {
        if (this.iamAuth === undefined) this.grantCredentials(grantee);
        else this.iamAuth.grantConnect(grantee);
      },
    };
  }

  allowConnectionsFrom(group: ec2.ISecurityGroup): void {
    for (const port of this.ports) {
      if (this.securityGroup === undefined) {
        // The addresses behind the endpoint are not known at synthesis; the port is.
        group.addEgressRule(ec2.Peer.anyIpv4(), ec2.Port.tcp(port), 'echomq-lambda to Valkey');
      } else {
        // Both sides: egress from the functions' group, ingress on the cache's.
        this.securityGroup.connections.allowFrom(
          group,
          ec2.Port.tcp(port),
          'echomq-lambda functions to Valkey',
        );
      }
    }
  }

  grantCredentials(grantee: iam.IGrantable): void {
    if (this.credentials !== undefined) grantSecretRead(this.credentials, grantee);
  }
}

/** The installer's own user, where one is given: only its credentials are granted to it. */
function installerOf(
  scope: Construct,
  given: ExistingInstaller | undefined,
): InstallerAccess | undefined {
  if (given === undefined) return undefined;
  if (given.iam !== undefined) {
    const auth = existingIamAuth(scope, given.iam);
    return { mode: 'install', environment: { ...auth.environment }, grant: auth.grantConnect };
  }
  const secret =
    given.secret ??
    (given.secretArn === undefined
      ? undefined
      : secretsmanager.Secret.fromSecretCompleteArn(
          scope,
          'InstallerCredentials',
          given.secretArn,
        ));
  return secret === undefined ? undefined : installerBySecret(secret);
}

/** `elasticache:Connect` on the named cache and user, and what the functions sign tokens for. */
function existingIamAuth(
  scope: Construct,
  auth: NonNullable<ResolvedExisting['iam']>,
): CacheIamAuth {
  const stack = Stack.of(scope);
  const serverless = auth.serverless ?? false;
  const arn = (resource: string, resourceName: string) =>
    stack.formatArn({
      service: 'elasticache',
      resource,
      resourceName,
      arnFormat: ArnFormat.COLON_RESOURCE_NAME,
    });
  const resources = [
    arn(serverless ? 'serverlesscache' : 'replicationgroup', auth.cacheName.toLowerCase()),
    arn('user', auth.userId),
  ];
  return {
    environment: {
      EMQ_IAM_AUTH: 'true',
      EMQ_USERNAME: auth.userId,
      EMQ_IAM_CACHE_NAME: auth.cacheName.toLowerCase(),
      EMQ_IAM_SERVERLESS: serverless ? 'true' : 'false',
    },
    grantConnect: (grantee) => {
      grantee.grantPrincipal.addToPrincipalPolicy(
        new iam.PolicyStatement({ actions: ['elasticache:Connect'], resources }),
      );
    },
  };
}
