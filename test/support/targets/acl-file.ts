/**
 * The ACL file every node of a target loads: the harness's own user (probes, cluster
 * creation, replication, digests; never handed to the product), the `default` user as the
 * profile has it, and the users a test asks for (the deployed ones: deployed.ts), each with
 * a password made here unless the test gives one.
 */
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';

export interface TargetUser {
  readonly name: string;
  /** ACL rules, e.g. a deployed access string (`on resetchannels -@all ...`). */
  readonly rules: string;
  /** Default: a random one (handle.passwords has it). */
  readonly password?: string;
}

/** The harness's user name: no deployed user is called this. */
export const HARNESS_USER = 'emq-harness';

export function newPassword(): string {
  return randomBytes(18).toString('hex');
}

/**
 * Writes the file; returns every user's password by name (`default` has none when it is on
 * without one). A test's `default` entry replaces the profile's.
 */
export async function writeAclFile(
  path: string,
  options: {
    readonly harnessPassword: string;
    readonly defaultUser: 'on' | 'off';
    readonly users: readonly TargetUser[];
  },
): Promise<Map<string, string>> {
  const passwords = new Map<string, string>();
  const lines = [`user ${HARNESS_USER} on >${options.harnessPassword} ~* &* +@all`];
  if (!options.users.some((user) => user.name === 'default')) {
    lines.push(
      options.defaultUser === 'on'
        ? 'user default on nopass ~* &* +@all'
        : 'user default off resetkeys resetchannels -@all',
    );
  }
  for (const user of options.users) {
    if (user.name === HARNESS_USER) throw new Error(`${HARNESS_USER} is the harness's own user`);
    if (/[\r\n]/.test(user.rules)) throw new Error(`the rules of ${user.name} span lines`);
    const password = user.password ?? newPassword();
    passwords.set(user.name, password);
    lines.push(`user ${user.name} ${user.rules} >${password}`);
  }
  await writeFile(path, `${lines.join('\n')}\n`, { mode: 0o600 });
  return passwords;
}
