/**
 * SigV4 for the HTTP face, by the AWS SDK's own signer (@aws-sdk/signature-v4-multi-region,
 * SigV4 for a plain region) and credential chain (@aws-sdk/credential-provider-node), with the
 * SDK's SHA-256 (@smithy/core/checksum). All three are imported at the first signing, so an
 * unsigned client (`credentials: false`) never loads them.
 *
 * The service is `execute-api` for API Gateway and `lambda` for a Function URL with IAM auth;
 * the region is the endpoint's own where its host names one.
 */
import { invalid } from './errors.js';

/** AWS credentials, as the SDK's credential providers give them. */
export interface AwsCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
  readonly expiration?: Date;
}

/**
 * Fixed credentials, or a provider such as the SDK's (`fromIni`, `fromTemporaryCredentials`).
 * Declared here so the client's types need no SDK package.
 */
export type Credentials = AwsCredentials | (() => Promise<AwsCredentials>);

/** What one request is signed for. */
export interface SigningScope {
  readonly region: string;
  readonly service: 'execute-api' | 'lambda';
}

/** `<id>.execute-api.<region>.amazonaws.com`, `<id>.lambda-url.<region>.on.aws`. */
const HOSTS = [
  { pattern: /\.execute-api\.([a-z0-9-]+)\.amazonaws\.com(\.cn)?$/, service: 'execute-api' },
  { pattern: /\.lambda-url\.([a-z0-9-]+)\.on\.aws$/, service: 'lambda' },
] as const;

/**
 * The scope for `endpoint`: the host's region and service, else `region` (or AWS_REGION) and
 * `execute-api` (a custom domain in front of API Gateway). Throws when no region is known.
 */
export function signingScope(endpoint: URL, region: string | undefined): SigningScope {
  for (const host of HOSTS) {
    const match = host.pattern.exec(endpoint.hostname);
    if (match?.[1] !== undefined) return { region: region ?? match[1], service: host.service };
  }
  const fallback = region ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION;
  if (fallback === undefined) {
    throw invalid(
      'EMQ_INVALID_CONFIG',
      `No region to sign requests to ${endpoint.host} with: pass \`region\`, set AWS_REGION, or pass \`credentials: false\` for an endpoint without IAM auth.`,
    );
  }
  return { region: fallback, service: 'execute-api' };
}

/** A request as it is sent. */
export interface Outgoing {
  readonly method: string;
  readonly url: URL;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Uint8Array | undefined;
}

type Sign = (request: Outgoing) => Promise<Record<string, string>>;

/** A signer for `scope`: resolves to the request's headers with the SigV4 ones added. */
export function signer(scope: SigningScope, credentials: Credentials | undefined): Sign {
  let ready: Promise<Sign> | undefined;
  return (request) => {
    ready ??= load(scope, credentials);
    // A failed load (a missing SDK package) is not kept: the next call tries again.
    ready.catch(() => {
      ready = undefined;
    });
    return ready.then((sign) => sign(request));
  };
}

async function load(scope: SigningScope, credentials: Credentials | undefined): Promise<Sign> {
  const [{ SignatureV4MultiRegion }, { Sha256 }] = await Promise.all([
    import('@aws-sdk/signature-v4-multi-region'),
    import('@smithy/core/checksum'),
  ]);
  // The default chain is memoized: role credentials are fetched again only as they near expiry.
  const chain =
    credentials ?? (await import('@aws-sdk/credential-provider-node')).defaultProvider();
  const sdk = new SignatureV4MultiRegion({
    service: scope.service,
    region: scope.region,
    credentials: chain,
    sha256: Sha256,
  });
  return async ({ method, url, headers, body }) => {
    const signed = await sdk.sign({
      method,
      protocol: url.protocol,
      hostname: url.hostname,
      port: url.port === '' ? undefined : Number(url.port),
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: { ...headers, host: url.host },
      body,
    });
    return Object.fromEntries(
      Object.entries(signed.headers).filter(([name]) => name.toLowerCase() !== 'host'),
    );
  };
}
