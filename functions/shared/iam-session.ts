/**
 * ElastiCache IAM authentication of the container's connection (`EMQ_IAM_AUTH=true`): the
 * token to open it with, and its renewal at the start of every invocation once the token in
 * use is TOKEN_REFRESH_AFTER_MS old. Renewing sets the new token for every later reconnect and
 * AUTHs every open connection with it, which also restarts ElastiCache's 12-hour limit.
 *
 * Renewal runs per invocation rather than on a timer: a frozen Lambda container runs no
 * timers, and the first thing a thawed one does is serve, so that is when the token is checked.
 */
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';
import type { Connection } from '../../src/connection/connector.js';
import { reconnecting, renewCredentials } from '../../src/connection/credentials.js';
import { UnavailableError } from '../../src/outcomes/outcomes.js';
import type { IamAuthConfig } from '../../src/settings/settings-parsers.js';
import { IamTokenSource } from './iam-token.js';
import { errorFields, log } from './log.js';

export interface IamSessionOptions {
  /** Credentials to sign with. Default: the SDK's default chain (Lambda's role credentials). */
  readonly credentials?: AwsCredentialIdentityProvider | undefined;
  /** Milliseconds since the epoch. Default `Date.now`. */
  readonly clock?: (() => number) | undefined;
}

let options: IamSessionOptions = {};

/** Fixed credentials or a clock for every later session (tests, hosts outside Lambda). */
export function setIamSessionOptions(next: IamSessionOptions): void {
  options = next;
}

let chain: AwsCredentialIdentityProvider | undefined;

/** The SDK's default chain, imported at first use so containers without IAM never load it. */
async function defaultCredentials(): Promise<AwsCredentialIdentity> {
  if (chain === undefined) {
    const { defaultProvider } = await import('@aws-sdk/credential-provider-node');
    // Memoized: role credentials are fetched again only as they near expiry.
    chain = defaultProvider();
  }
  return chain();
}

export class IamSession {
  private readonly source: IamTokenSource;
  /** The token the open connection authenticated with last. */
  private applied: string | undefined;

  constructor(private readonly target: IamAuthConfig) {
    this.source = new IamTokenSource(
      target,
      options.credentials ?? defaultCredentials,
      options.clock ?? Date.now,
    );
  }

  /** The current token. No credentials or a signer fault is retryable: they come back. */
  async token(): Promise<string> {
    try {
      return await this.source.token();
    } catch (error) {
      log('warn', 'iam token signing failed', errorFields(error));
      throw new UnavailableError(
        'The cache credentials cannot be obtained right now; retry later.',
        {
          cause: error,
        },
      );
    }
  }

  /** Records the token a new connection opened with. */
  opened(token: string): void {
    this.applied = token;
  }

  /**
   * Moves `connection` onto the current token if it is newer. False when the open connection
   * failed to re-authenticate, or is reconnecting (after an idle spell its reconnects carried
   * the stale token and were refused, and the next attempt is a backoff away): the caller
   * rebuilds it with the new token rather than answer 503. Throws UnavailableError when no
   * token can be signed.
   */
  async keepFresh(connection: Connection): Promise<boolean> {
    const token = await this.token();
    if (token === this.applied) return true;
    try {
      await renewCredentials(connection, this.target.userId, token);
      this.applied = token;
    } catch (error) {
      log('warn', 'iam re-authentication failed', errorFields(error));
      return false;
    }
    if (reconnecting(connection)) {
      log('warn', 'iam connection reconnecting at renewal', {});
      return false;
    }
    return true;
  }
}
