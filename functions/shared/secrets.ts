/**
 * Valkey credentials from AWS Secrets Manager, read at a container's cold start and again
 * after the cache refused them (a rotated password), at most once a second. The secret is
 * JSON `{"username": "...", "password": "..."}`; nothing of it is ever logged.
 */
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { ConfigError, UnavailableError } from '../../src/outcomes/outcomes.js';

export interface Credentials {
  readonly username: string | undefined;
  readonly password: string;
}

/** A container reads its secret again at most this often (docs/security.md). */
export const REREAD_INTERVAL_MS = 1_000;

/**
 * A container's credentials from its secret: read on first use, and read again once the ones
 * read last were refused (or their read failed), no sooner than REREAD_INTERVAL_MS after the
 * last read. Concurrent callers share one read.
 */
export class SecretCredentials {
  #read: Promise<Credentials> | undefined;
  /** What the last read gave, once it came. */
  #value: Credentials | undefined;
  #readAt = 0;
  /** The last read failed, or what it gave was refused: the next get() reads when due. */
  #stale = false;

  constructor(
    private readonly secretArn: string,
    private readonly clock: () => number = () => performance.now(),
    private readonly client?: Pick<SecretsManagerClient, 'send'>,
  ) {}

  /** The credentials read last, or read now where those were refused and a read is due. */
  get(): Promise<Credentials> {
    const now = this.clock();
    if (this.#read === undefined || (this.#stale && now - this.#readAt >= REREAD_INTERVAL_MS)) {
      const read = readCredentials(this.secretArn, this.client);
      this.#read = read;
      this.#readAt = now;
      this.#stale = false;
      read.then(
        (value) => {
          if (this.#read === read) this.#value = value;
        },
        () => {
          if (this.#read === read) this.#stale = true;
        },
      );
    }
    return this.#read;
  }

  /** The cache refused `credentials`: if they are the ones read last, the next get() reads when due. */
  refused(credentials: Credentials): void {
    if (credentials === this.#value) this.#stale = true;
  }
}

/** Equal user and password: a read that found the secret unchanged. */
export function sameCredentials(a: Credentials, b: Credentials): boolean {
  return a.username === b.username && a.password === b.password;
}

export async function readCredentials(
  secretArn: string,
  client?: Pick<SecretsManagerClient, 'send'>,
): Promise<Credentials> {
  // The SDK loads only where a secret is configured.
  const { GetSecretValueCommand, SecretsManagerClient } = await import(
    '@aws-sdk/client-secrets-manager'
  );
  const sender = client ?? new SecretsManagerClient({});
  let SecretString: string | undefined;
  try {
    ({ SecretString } = await sender.send(new GetSecretValueCommand({ SecretId: secretArn })));
  } catch (error) {
    // Throttling, a network fault, an outage: the next invocation can succeed (docs/reliability.md,
    // "Outcomes").
    throw new UnavailableError('The credentials store cannot be read right now; retry later.', {
      cause: error,
    });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(SecretString ?? '');
  } catch {
    parsed = undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) throw malformed();
  const { username, password } = parsed as Record<string, unknown>;
  if (typeof password !== 'string' || (username !== undefined && typeof username !== 'string')) {
    throw malformed();
  }
  return { username, password };
}

function malformed(): ConfigError {
  return new ConfigError(
    'EMQ_SECRET_ARN names a secret that is not JSON {"username": "...", "password": "..."}.',
  );
}
