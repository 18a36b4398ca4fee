/**
 * What every cache the construct creates shares: a security group that admits the functions on
 * the cache's client ports only, the Secrets Manager credentials of the functions' and the
 * installer's users, and the connection environment (TLS URLs, cluster mode, the family).
 * Each kind's construct extends this and builds only its own resources.
 */
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import type * as iam from 'aws-cdk-lib/aws-iam';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct, type IDependable } from 'constructs';
import type { FamilyChoice } from '../../src/settings/config.js';
import {
  type CacheConnectionEnvironment,
  type CacheTarget,
  type InstallerAccess,
  installerBySecret,
} from './cache.js';
import type { CacheRotation } from './rotation.js';
import { grantSecretRead } from './secret-read.js';

export interface OwnedCacheGroup {
  readonly vpc: ec2.IVpc;
  /** The security group's description. */
  readonly description: string;
  /** The ports the functions reach the cache on, and the rule's description. */
  readonly clientPorts: ec2.Port;
  readonly clientPortsDescription: string;
}

/** The functions' and the installer's credentials of a created cache. */
export interface OwnedCacheCredentials {
  /** `{"username","password"}` of the functions' user; none where they sign IAM tokens. */
  readonly credentials: secretsmanager.Secret | undefined;
  /** `{"username","password"}` of the installer's user; readable by the installer only. */
  readonly installerCredentials: secretsmanager.Secret;
  /** The users whose secrets rotate; none where the kind's passwords change another way. */
  readonly rotation?: CacheRotation | undefined;
}

export abstract class OwnedCache extends Construct implements CacheTarget {
  abstract readonly kind: string;
  readonly securityGroup: ec2.SecurityGroup;
  /** The whole construct: the cache, its users and the rules that admit the functions. */
  readonly ready: IDependable = this;
  private readonly group: OwnedCacheGroup;
  private users: (OwnedCacheCredentials & { readonly installer: InstallerAccess }) | undefined;
  private connection: { endpoint: string; environment: CacheConnectionEnvironment } | undefined;

  protected constructor(scope: Construct, id: string, group: OwnedCacheGroup) {
    super(scope, id);
    this.group = group;
    this.securityGroup = new ec2.SecurityGroup(this, 'SecurityGroup', {
      vpc: group.vpc,
      description: group.description,
      allowAllOutbound: false,
    });
  }

  /** `{"username","password"}` of the functions' user; none with `cacheAuth=iam`. */
  get credentials(): secretsmanager.Secret | undefined {
    return this.built(this.users, 'credentials').credentials;
  }

  /** `{"username","password"}` of the installer's user; readable by the installer only. */
  get installerCredentials(): secretsmanager.Secret {
    return this.built(this.users, 'credentials').installerCredentials;
  }

  /** The password users whose secrets rotate (constructs/credential-rotation.ts). */
  get rotation(): CacheRotation | undefined {
    return this.built(this.users, 'credentials').rotation;
  }

  /** The installer connects as its own user, with its own secret. */
  get installer(): InstallerAccess {
    return this.built(this.users, 'credentials').installer;
  }

  get endpoint(): string {
    return this.built(this.connection, 'endpoint').endpoint;
  }

  get connectionEnvironment(): CacheConnectionEnvironment {
    return this.built(this.connection, 'endpoint').environment;
  }

  /** Records the users' credentials (the kind creates them: RBAC users, ACL users, ...). */
  protected useCredentials(users: OwnedCacheCredentials): void {
    this.users = { ...users, installer: installerBySecret(users.installerCredentials) };
  }

  /**
   * Records where the functions connect: TLS to each `host:port` seed, cluster mode, the
   * family, the functions' secret where they have one, and what the kind adds.
   */
  protected connectTo(
    seeds: readonly string[],
    family: FamilyChoice,
    extra: Readonly<Record<string, string>> = {},
  ): void {
    const credentials = this.credentials;
    this.connection = {
      endpoint: seeds.join(','),
      environment: {
        EMQ_URL: seeds.map((seed) => `rediss://${seed}`).join(','),
        EMQ_CLUSTER: 'true',
        EMQ_EXECUTOR: family,
        // With cacheAuth=iam the functions hold no password: iamAuth adds what they sign for.
        ...(credentials === undefined ? {} : { EMQ_SECRET_ARN: credentials.secretArn }),
        ...extra,
      },
    };
  }

  allowConnectionsFrom(group: ec2.ISecurityGroup): void {
    this.securityGroup.connections.allowFrom(
      group,
      this.group.clientPorts,
      this.group.clientPortsDescription,
    );
  }

  grantCredentials(grantee: iam.IGrantable): void {
    if (this.credentials !== undefined) grantSecretRead(this.credentials, grantee);
  }

  private built<T>(part: T | undefined, name: string): T {
    if (part === undefined) {
      throw new Error(`${this.node.path}: the cache construct set no ${name} in its constructor.`);
    }
    return part;
  }
}
