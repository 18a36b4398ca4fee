/**
 * The cache service's side of a rotation: a user's passwords through ElastiCache's
 * `ModifyUser` and `DescribeUsers` (node-based and Serverless caches, by user id) or MemoryDB's
 * `UpdateUser` and `DescribeUsers` (by user name). Both take up to two passwords in
 * `AuthenticationMode.Passwords`. Lambda's Node.js runtime ships both SDK clients; the package
 * neither bundles nor depends on them, so they are loaded by name and read through the few
 * fields this file names (fenced here: the rest of the function sees `UserPasswords` only).
 */
import { RotationError, type UserPasswords } from './rotation.js';

/** A user's state as the service reports it. */
export interface UserState {
  /** `active` once the service applied the last change; `modifying` meanwhile. */
  readonly status: string;
  readonly passwordCount: number;
}

export type RotatedService = 'elasticache' | 'memorydb';

/** What a loaded SDK client module is used for. */
interface Sender {
  send(command: object): Promise<unknown>;
}
type Construct<T> = new (input: object) => T;

/** The SDK's names per service, and which field names the user. */
const SERVICES: Readonly<
  Record<
    RotatedService,
    { module: string; client: string; update: string; describe: string; userField: string }
  >
> = {
  elasticache: {
    module: '@aws-sdk/client-elasticache',
    client: 'ElastiCacheClient',
    update: 'ModifyUserCommand',
    describe: 'DescribeUsersCommand',
    userField: 'UserId',
  },
  memorydb: {
    module: '@aws-sdk/client-memorydb',
    client: 'MemoryDBClient',
    update: 'UpdateUserCommand',
    describe: 'DescribeUsersCommand',
    userField: 'UserName',
  },
};

/** The user passwords of `service`, sent through the module's own client and commands. */
export function userPasswords(
  service: RotatedService,
  sdk: Readonly<Record<string, unknown>>,
): UserPasswords & { describe(userId: string): Promise<UserState> } {
  const names = SERVICES[service];
  const client = new (constructorOf<Sender>(sdk, names.client))({});
  const Update = constructorOf<object>(sdk, names.update);
  const Describe = constructorOf<object>(sdk, names.describe);
  return {
    async set(userId, passwords) {
      await client.send(
        new Update({
          [names.userField]: userId,
          AuthenticationMode: { Type: 'password', Passwords: [...passwords] },
        }),
      );
    },
    async describe(userId) {
      return stateOf(await client.send(new Describe({ [names.userField]: userId })), userId);
    },
    // Active again, holding as many passwords as it was given: the service shows no more.
    async applied(userId, passwords) {
      const state = await this.describe(userId);
      if (state.status !== 'active') return state.status;
      if (state.passwordCount !== passwords.length) {
        throw new RotationError(
          `The user holds ${state.passwordCount} passwords where setSecret gave it ${passwords.length}.`,
        );
      }
      return undefined;
    },
  };
}

/** Loads the service's SDK client module from the Lambda runtime. */
export async function loadServiceSdk(
  service: RotatedService,
): Promise<Readonly<Record<string, unknown>>> {
  const name = SERVICES[service].module;
  const loaded: Readonly<Record<string, unknown>> = await import(name);
  return loaded;
}

function constructorOf<T>(sdk: Readonly<Record<string, unknown>>, name: string): Construct<T> {
  const found = sdk[name];
  if (typeof found !== 'function') {
    throw new Error(`The AWS SDK module has no ${name}; the Lambda runtime's SDK is too old.`);
  }
  return found as Construct<T>;
}

/** `{ Users: [{ Status, Authentication: { PasswordCount } }] }`, as both services answer. */
function stateOf(output: unknown, userId: string): UserState {
  const users = (output as { Users?: unknown } | undefined)?.Users;
  const user = Array.isArray(users) ? (users[0] as Record<string, unknown> | undefined) : undefined;
  if (user === undefined) throw new Error(`The cache service knows no user ${userId}.`);
  const authentication = user.Authentication as { PasswordCount?: unknown } | undefined;
  return {
    status: typeof user.Status === 'string' ? user.Status : 'unknown',
    passwordCount:
      typeof authentication?.PasswordCount === 'number' ? authentication.PasswordCount : 0,
  };
}
