/**
 * Rotating a cache user's password in Secrets Manager's four steps (createSecret, setSecret,
 * testSecret, finishSecret), for the users of the caches the construct creates. The user
 * accepts two passwords (ElastiCache `ModifyUser`, MemoryDB `UpdateUser`, a self-managed
 * node's `ACL SETUSER`): setSecret gives it
 * the current one and the new one, so a container still holding the current password keeps
 * logging in until the next rotation replaces it, and a container refused re-reads the secret
 * (docs/operations.md, "Rotating credentials"). Every step may run again: each checks what is
 * already done. Nothing of a secret's value is ever logged.
 */
import {
  DescribeSecretCommand,
  GetRandomPasswordCommand,
  GetSecretValueCommand,
  PutSecretValueCommand,
  type SecretsManagerClient,
  UpdateSecretVersionStageCommand,
} from '@aws-sdk/client-secrets-manager';

export type RotationStep = 'createSecret' | 'setSecret' | 'testSecret' | 'finishSecret';

/** The event Secrets Manager invokes a rotation function with. */
export interface RotationEvent {
  readonly Step: RotationStep;
  readonly SecretId: string;
  readonly ClientRequestToken: string;
}

/**
 * The cache's side: one user's passwords (ElastiCache or MemoryDB through their user API,
 * user-passwords.ts; a self-managed cluster's nodes through ACL SETUSER, node-passwords.ts).
 */
export interface UserPasswords {
  /** Replaces the user's passwords with these (at most two). */
  set(userId: string, passwords: readonly string[]): Promise<void>;
  /**
   * Undefined once the cache applied `set`'s change, else the user's state meanwhile (the
   * service's `modifying`); throws a RotationError where the user does not hold `passwords`.
   */
  applied(userId: string, passwords: readonly string[]): Promise<string | undefined>;
}

export interface RotationDeps {
  readonly secrets: Pick<SecretsManagerClient, 'send'>;
  readonly users: UserPasswords;
  /** The cache user each rotated secret belongs to, by secret ARN (the construct's list). */
  userOf(secretArn: string): string | undefined;
  /** Waits before the user's state is read again. */
  pause(ms: number): Promise<void>;
  /** How long testSecret waits for the cache to apply setSecret's change. */
  readonly settleMs: number;
}

const CURRENT = 'AWSCURRENT';
const PENDING = 'AWSPENDING';
/** The length of a generated password: as the construct's first one (infra/cache/user-secret.ts). */
const PASSWORD_LENGTH = 32;
const POLL_MS = 5_000;

/** Thrown where rotation cannot go on; Secrets Manager records the failure and retries later. */
export class RotationError extends Error {
  override readonly name = 'RotationError';
}

export async function rotate(event: RotationEvent, deps: RotationDeps): Promise<void> {
  const { SecretId: secretId, ClientRequestToken: token } = event;
  const userId = deps.userOf(secretId);
  if (userId === undefined) {
    throw new RotationError('This rotation function rotates only the secrets of its own cache.');
  }
  const described = await deps.secrets.send(new DescribeSecretCommand({ SecretId: secretId }));
  if (described.RotationEnabled !== true) {
    throw new RotationError('Rotation is not enabled on this secret.');
  }
  const stages = described.VersionIdsToStages?.[token];
  if (stages === undefined) {
    throw new RotationError('The rotation token is not a version of this secret.');
  }
  if (stages.includes(CURRENT) && event.Step !== 'finishSecret') return;
  if (!stages.includes(CURRENT) && !stages.includes(PENDING)) {
    throw new RotationError('The rotation token is neither the current nor the pending version.');
  }
  switch (event.Step) {
    case 'createSecret':
      return createSecret(secretId, token, deps);
    case 'setSecret':
      return setSecret(secretId, token, userId, deps);
    case 'testSecret':
      return testSecret(secretId, token, userId, deps);
    case 'finishSecret':
      return finishSecret(secretId, token, described.VersionIdsToStages ?? {}, deps);
  }
}

/** The pending version: the current value with a new password, unless it is there already. */
async function createSecret(secretId: string, token: string, deps: RotationDeps): Promise<void> {
  const current = await readUser(deps, secretId, { VersionStage: CURRENT });
  if ((await readUserIfAny(deps, secretId, token)) !== undefined) return;
  const { RandomPassword } = await deps.secrets.send(
    new GetRandomPasswordCommand({ PasswordLength: PASSWORD_LENGTH, ExcludePunctuation: true }),
  );
  if (RandomPassword === undefined) throw new RotationError('Secrets Manager made no password.');
  await deps.secrets.send(
    new PutSecretValueCommand({
      SecretId: secretId,
      ClientRequestToken: token,
      SecretString: JSON.stringify({ ...current.value, password: RandomPassword }),
      VersionStages: [PENDING],
    }),
  );
}

/** The user accepts the current password and the pending one. */
async function setSecret(
  secretId: string,
  token: string,
  userId: string,
  deps: RotationDeps,
): Promise<void> {
  await deps.users.set(userId, await bothPasswords(deps, secretId, token));
}

/**
 * The cache applied the change: the user holds both passwords. A service's user API says so
 * (the function runs outside the cache's VPC, so it cannot log in itself); a self-managed
 * cluster's nodes are logged in to with each password, every node.
 */
async function testSecret(
  secretId: string,
  token: string,
  userId: string,
  deps: RotationDeps,
): Promise<void> {
  const passwords = await bothPasswords(deps, secretId, token);
  for (let waited = 0; ; waited += POLL_MS) {
    const state = await deps.users.applied(userId, passwords);
    if (state === undefined) return;
    if (waited >= deps.settleMs) {
      throw new RotationError(
        `The user is still '${state}' after ${deps.settleMs} ms; the next attempt checks again.`,
      );
    }
    await deps.pause(POLL_MS);
  }
}

/** The pending version becomes the current one; the old current one becomes AWSPREVIOUS. */
async function finishSecret(
  secretId: string,
  token: string,
  stages: Readonly<Record<string, readonly string[]>>,
  deps: RotationDeps,
): Promise<void> {
  const currentVersion = Object.entries(stages).find(([, names]) => names.includes(CURRENT))?.[0];
  if (currentVersion === token) return;
  await deps.secrets.send(
    new UpdateSecretVersionStageCommand({
      SecretId: secretId,
      VersionStage: CURRENT,
      MoveToVersionId: token,
      ...(currentVersion === undefined ? {} : { RemoveFromVersionId: currentVersion }),
    }),
  );
}

/** The current password and the pending one (once, where a step ran before and they match). */
async function bothPasswords(
  deps: RotationDeps,
  secretId: string,
  token: string,
): Promise<string[]> {
  const current = await readUser(deps, secretId, { VersionStage: CURRENT });
  const pending = await readUser(deps, secretId, { VersionId: token, VersionStage: PENDING });
  return [...new Set([current.password, pending.password])];
}

interface UserSecret {
  /** The whole JSON object, kept as it is (the user name and anything else it holds). */
  readonly value: Readonly<Record<string, unknown>>;
  readonly password: string;
}

async function readUser(
  deps: RotationDeps,
  secretId: string,
  version: { readonly VersionId?: string; readonly VersionStage: string },
): Promise<UserSecret> {
  const { SecretString } = await deps.secrets.send(
    new GetSecretValueCommand({ SecretId: secretId, ...version }),
  );
  return parseUser(SecretString);
}

async function readUserIfAny(
  deps: RotationDeps,
  secretId: string,
  token: string,
): Promise<UserSecret | undefined> {
  try {
    return await readUser(deps, secretId, { VersionId: token, VersionStage: PENDING });
  } catch (error) {
    if (error instanceof Error && error.name === 'ResourceNotFoundException') return undefined;
    throw error;
  }
}

function parseUser(text: string | undefined): UserSecret {
  let value: unknown;
  try {
    value = JSON.parse(text ?? '');
  } catch {
    value = undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new RotationError('The secret is not a JSON object {"username","password"}.');
  }
  const password = (value as Record<string, unknown>).password;
  if (typeof password !== 'string' || password === '') {
    throw new RotationError('The secret holds no password.');
  }
  return { value: value as Record<string, unknown>, password };
}
