/**
 * ElastiCache and MemoryDB IAM authentication tokens (`-c cacheAuth=iam`): a SigV4-presigned `connect`
 * request for one user and one cache, valid 15 minutes, used as the AUTH password. Signed by
 * the AWS SDK's own signer (@aws-sdk/signature-v4-multi-region 3.996.52, SigV4 for a plain
 * region; external to the bundles like every @aws-sdk package, the Lambda runtime provides it).
 *
 * A token only opens connections: an open connection stays authenticated until ElastiCache
 * drops it at 12 hours, so the connector must re-authenticate (AUTH with a fresh token) or
 * reconnect before then, and take a fresh token on every reconnect.
 *
 * The signer is imported at the first signing, so a container without IAM never loads it.
 */
import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';
import type {
  AwsCredentialIdentity,
  AwsCredentialIdentityProvider,
  Checksum,
  SourceData,
} from '@smithy/types';

/** How long ElastiCache accepts a token: 15 minutes, its maximum. */
export const TOKEN_VALIDITY_SECONDS = 900;
/** A token is replaced once this old, so none in use is within 5 minutes of expiring. */
export const TOKEN_REFRESH_AFTER_MS = 600_000;

export interface IamTokenTarget {
  /** The IAM-enabled RBAC user id (its user name equals its id). */
  readonly userId: string;
  /** The replication group id or the Serverless cache name, lowercase. */
  readonly cacheName: string;
  readonly region: string;
  /** A Serverless cache (`ResourceType=ServerlessCache`). */
  readonly serverless: boolean;
  /** The service the token is signed for (MemoryDB signs for `memorydb`). Default `elasticache`. */
  readonly service?: 'elasticache' | 'memorydb';
}

/** SHA-256 (or HMAC-SHA-256 with a secret) as the signer wants it, from node:crypto. */
class NodeSha256 implements Checksum {
  private hash: Hash | Hmac;
  private readonly secret: Buffer | string | undefined;
  constructor(secret?: SourceData) {
    this.secret = secret === undefined ? undefined : bytes(secret);
    this.hash = this.fresh();
  }
  private fresh(): Hash | Hmac {
    return this.secret === undefined ? createHash('sha256') : createHmac('sha256', this.secret);
  }
  update(data: SourceData): void {
    this.hash.update(bytes(data));
  }
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.hash.digest());
  }
  reset(): void {
    this.hash = this.fresh();
  }
}

function bytes(data: SourceData): Buffer | string {
  if (typeof data === 'string') return data;
  if (ArrayBuffer.isView(data)) return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  return Buffer.from(data);
}

/** One token: `<cacheName>/?Action=connect&User=<id>&X-Amz-...` (no scheme, as ElastiCache wants). */
export async function signIamToken(
  target: IamTokenTarget,
  credentials: AwsCredentialIdentity | AwsCredentialIdentityProvider,
  now: Date,
): Promise<string> {
  const { SignatureV4MultiRegion } = await import('@aws-sdk/signature-v4-multi-region');
  const signer = new SignatureV4MultiRegion({
    service: target.service ?? 'elasticache',
    region: target.region,
    credentials,
    sha256: NodeSha256,
  });
  const query: Record<string, string> = { Action: 'connect', User: target.userId };
  if (target.serverless) query.ResourceType = 'ServerlessCache';
  const signed = await signer.presign(
    {
      method: 'GET',
      protocol: 'http:',
      hostname: target.cacheName,
      path: '/',
      query,
      headers: { host: target.cacheName },
    },
    { expiresIn: TOKEN_VALIDITY_SECONDS, signingDate: now },
  );
  const pairs = Object.entries(signed.query ?? {}).flatMap(([key, value]) =>
    (Array.isArray(value) ? value : [value]).map(
      (item) => `${encodeURIComponent(key)}=${encodeURIComponent(String(item ?? ''))}`,
    ),
  );
  return `${target.cacheName}/?${pairs.join('&')}`;
}

/** Hands out a current token, signing a new one when the last is TOKEN_REFRESH_AFTER_MS old. */
export class IamTokenSource {
  private current: { token: Promise<string>; signedAt: number } | undefined;

  constructor(
    private readonly target: IamTokenTarget,
    private readonly credentials: AwsCredentialIdentity | AwsCredentialIdentityProvider,
    private readonly clock: () => number = Date.now,
  ) {}

  /** The token to AUTH with now; concurrent callers share one signing. */
  token(): Promise<string> {
    const now = this.clock();
    if (this.current === undefined || now - this.current.signedAt >= TOKEN_REFRESH_AFTER_MS) {
      const token = signIamToken(this.target, this.credentials, new Date(now));
      // A failed signing (no credentials yet) must not stick: the next call tries again.
      token.catch(() => {
        if (this.current?.token === token) this.current = undefined;
      });
      this.current = { token, signedAt: now };
    }
    return this.current.token;
  }
}
