// The rotation function of the caches the construct creates (functions/rotate), its four steps
// run as Secrets Manager runs them, against stand-ins of the AWS APIs: Secrets Manager's
// versions and stages behind the SDK client's own commands, and ElastiCache's user API backed
// by a real Valkey whose ACL user is the cache user. After a rotation the user accepts the
// current and the new password; after the next one the oldest is refused.
import type { Valkey } from 'iovalkey';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RotationDeps, RotationError, rotate } from '../../functions/rotate/rotation.js';
import { userPasswords } from '../../functions/rotate/user-passwords.js';
import { ADMIN, usersWithAdmin } from '../support/admin-user.js';
import {
  FIRST_PASSWORD,
  logsIn,
  SECRET_ARN,
  SecretVersions as SecretsManagerStandIn,
  STEPS,
} from '../support/secret-versions.js';
import { type ServerHandle, startStandalone } from '../support/servers.js';

const USER_ID = 'emq-test-app';

/**
 * ElastiCache's `ModifyUser` and `DescribeUsers`, as the SDK module's classes, applied to the
 * user of a real Valkey: at most two passwords (as ElastiCache allows), and a user that reads
 * `modifying` once after each change, as the service's does while it applies it.
 */
function elastiCacheStandIn(admin: Valkey): Record<string, unknown> {
  let modifying = false;
  class ModifyUserCommand {
    constructor(readonly input: { UserId: string; AuthenticationMode: { Passwords: string[] } }) {}
  }
  class DescribeUsersCommand {
    constructor(readonly input: { UserId: string }) {}
  }
  class ElastiCacheClient {
    async send(command: object): Promise<unknown> {
      if (command instanceof ModifyUserCommand) {
        const { UserId, AuthenticationMode } = command.input;
        if (AuthenticationMode.Passwords.length > 2) throw new Error('InvalidParameterValue');
        const passwords = AuthenticationMode.Passwords.map((password) => `>${password}`);
        await admin.call('ACL', 'SETUSER', UserId, 'on', 'resetpass', ...passwords, '~*', '+@all');
        modifying = true;
        return { Status: 'modifying' };
      }
      if (command instanceof DescribeUsersCommand) {
        const rules = (await admin.call('ACL', 'GETUSER', command.input.UserId)) as unknown[];
        const passwords = rules[rules.indexOf('passwords') + 1] as unknown[];
        const status = modifying ? 'modifying' : 'active';
        modifying = false;
        return {
          Users: [
            {
              UserId: command.input.UserId,
              Status: status,
              Authentication: { Type: 'password', PasswordCount: passwords.length },
            },
          ],
        };
      }
      throw new Error('unknown command');
    }
  }
  return { ElastiCacheClient, ModifyUserCommand, DescribeUsersCommand };
}

let server: ServerHandle;
let admin: Valkey;

beforeAll(async () => {
  server = await startStandalone({
    auth: ADMIN,
    extraArgs: usersWithAdmin([USER_ID, 'on', `>${FIRST_PASSWORD}`, '~*', '+@all']),
  });
  admin = await server.client();
});

afterAll(async () => {
  admin?.disconnect();
  await server?.stop();
});

function depsOver(secrets: SecretsManagerStandIn): RotationDeps {
  return {
    secrets,
    users: userPasswords('elasticache', elastiCacheStandIn(admin)),
    userOf: (arn) => (arn === SECRET_ARN ? USER_ID : undefined),
    pause: () => Promise.resolve(),
    settleMs: 60_000,
  };
}

async function rotateOnce(secrets: SecretsManagerStandIn, token: string): Promise<void> {
  secrets.startRotation(token);
  for (const step of STEPS) {
    await rotate(
      { Step: step, SecretId: SECRET_ARN, ClientRequestToken: token },
      depsOver(secrets),
    );
  }
}

describe('the rotation function', () => {
  it('keeps the current password valid beside the new one, and drops it at the next rotation', async () => {
    await admin.call('ACL', 'SETUSER', USER_ID, 'on', 'resetpass', `>${FIRST_PASSWORD}`);
    const secrets = new SecretsManagerStandIn(
      JSON.stringify({ username: USER_ID, password: FIRST_PASSWORD }),
    );
    await rotateOnce(secrets, 'token-1');
    const second = secrets.current();
    expect(second.username).toBe(USER_ID);
    expect(second.password).not.toBe(FIRST_PASSWORD);
    expect(second.password).toHaveLength(32);
    expect(await logsIn(server, USER_ID, String(second.password))).toBe(true);
    expect(await logsIn(server, USER_ID, FIRST_PASSWORD)).toBe(true);

    await rotateOnce(secrets, 'token-2');
    const third = secrets.current();
    expect(await logsIn(server, USER_ID, String(third.password))).toBe(true);
    expect(await logsIn(server, USER_ID, String(second.password))).toBe(true);
    expect(await logsIn(server, USER_ID, FIRST_PASSWORD)).toBe(false);
    expect(secrets.versions.get('token-1')?.stages).toEqual(['AWSPREVIOUS']);
  });

  it('runs every step again without a change, as Secrets Manager may', async () => {
    await admin.call('ACL', 'SETUSER', USER_ID, 'on', 'resetpass', `>${FIRST_PASSWORD}`);
    const secrets = new SecretsManagerStandIn(
      JSON.stringify({ username: USER_ID, password: FIRST_PASSWORD }),
    );
    secrets.startRotation('again');
    for (const step of STEPS) {
      for (const _ of [1, 2]) {
        await rotate(
          { Step: step, SecretId: SECRET_ARN, ClientRequestToken: 'again' },
          depsOver(secrets),
        );
      }
    }
    const current = secrets.current();
    expect(secrets.versions.size).toBe(2);
    expect(await logsIn(server, USER_ID, String(current.password))).toBe(true);
    expect(await logsIn(server, USER_ID, FIRST_PASSWORD)).toBe(true);
  });

  it('refuses a secret that is not its own cache user, and changes nothing', async () => {
    const secrets = new SecretsManagerStandIn(JSON.stringify({ username: 'x', password: 'y' }));
    const failure = await rotate(
      { Step: 'createSecret', SecretId: `${SECRET_ARN}-other`, ClientRequestToken: 't' },
      depsOver(secrets),
    ).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(RotationError);
    expect(secrets.versions.size).toBe(1);
  });

  it('fails testSecret while the service has not applied the change, naming the state', async () => {
    const secrets = new SecretsManagerStandIn(
      JSON.stringify({ username: USER_ID, password: FIRST_PASSWORD }),
    );
    const deps: RotationDeps = {
      ...depsOver(secrets),
      users: {
        set: () => Promise.resolve(),
        applied: () => Promise.resolve('modifying'),
      },
      settleMs: 0,
    };
    secrets.startRotation('slow');
    await rotate({ Step: 'createSecret', SecretId: SECRET_ARN, ClientRequestToken: 'slow' }, deps);
    const failure = await rotate(
      { Step: 'testSecret', SecretId: SECRET_ARN, ClientRequestToken: 'slow' },
      deps,
    ).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(RotationError);
    expect((failure as Error).message).toContain("'modifying'");
    expect((failure as Error).message).not.toContain(FIRST_PASSWORD);
  });
});

describe("MemoryDB's user API", () => {
  it('names the user by its name in UpdateUser and DescribeUsers, with both passwords', async () => {
    const sent: { command: string; input: unknown }[] = [];
    class UpdateUserCommand {
      constructor(readonly input: object) {}
    }
    class DescribeUsersCommand {
      constructor(readonly input: object) {}
    }
    class MemoryDBClient {
      async send(command: UpdateUserCommand | DescribeUsersCommand): Promise<unknown> {
        sent.push({ command: command.constructor.name, input: command.input });
        return command instanceof DescribeUsersCommand
          ? {
              Users: [
                { Name: 'emq-x-app', Status: 'active', Authentication: { PasswordCount: 2 } },
              ],
            }
          : { User: { Status: 'modifying' } };
      }
    }
    const users = userPasswords('memorydb', {
      MemoryDBClient,
      UpdateUserCommand,
      DescribeUsersCommand,
    });
    await users.set('emq-x-app', ['current', 'new']);
    expect(await users.describe('emq-x-app')).toEqual({ status: 'active', passwordCount: 2 });
    expect(sent).toEqual([
      {
        command: 'UpdateUserCommand',
        input: {
          UserName: 'emq-x-app',
          AuthenticationMode: { Type: 'password', Passwords: ['current', 'new'] },
        },
      },
      { command: 'DescribeUsersCommand', input: { UserName: 'emq-x-app' } },
    ]);
  });
});
