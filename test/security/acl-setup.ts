// The three server kinds of the ACL tests, one per family of admission calls, each with the
// users the stack deploys on it: an ACL file holding the harness's own user and the
// functions' and installer's users under the rules read from the synthesized template
// (deployed-rules.ts).
//
// - function: ElastiCache node-based (no module; FCALL of the library).
// - script: ElastiCache Serverless (no module, and FCALL, FCALL_RO, FUNCTION and WAIT renamed
//   away, as AWS's supported-commands page lists them unavailable there): a rule naming any
//   of them would stop the server loading its ACL file, as Serverless would refuse it.
// - native: the self-managed cluster (the module loaded).
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type DeployedRules,
  elastiCacheRules,
  FUNCTIONS_USER,
  INSTALLER_USER,
  selfManagedRules,
  serverlessRules,
} from './deployed-rules.js';

export const PASSWORD = randomBytes(18).toString('hex');
export { FUNCTIONS_USER, INSTALLER_USER };

export type Family = 'function' | 'script' | 'native';

export interface ServerKind {
  readonly name: string;
  readonly family: Family;
  /** The server loads the EchoMQ module. */
  readonly module: boolean;
  /** Server arguments beyond the ACL file. */
  readonly serverArgs: readonly string[];
  readonly rules: () => DeployedRules;
}

/** What ElastiCache Serverless does not have, of what a rule or the harness could name. */
const SERVERLESS_ABSENT = ['FCALL', 'FCALL_RO', 'FUNCTION', 'WAIT'];

const cached = <T>(make: () => T): (() => T) => {
  let value: T | undefined;
  return () => {
    value ??= make();
    return value;
  };
};

export const KINDS: readonly ServerKind[] = [
  {
    name: 'ElastiCache-like server (no module, function family)',
    family: 'function',
    module: false,
    serverArgs: [],
    rules: cached(elastiCacheRules),
  },
  {
    name: 'Serverless-like server (no module, no FCALL/FUNCTION/WAIT, script family)',
    family: 'script',
    module: false,
    serverArgs: SERVERLESS_ABSENT.flatMap((command) => ['--rename-command', command, '']),
    rules: cached(serverlessRules),
  },
  {
    name: 'self-managed server (module, native family)',
    family: 'native',
    module: true,
    serverArgs: [],
    rules: cached(selfManagedRules),
  },
];

/** A folder for ACL files; `remove` deletes it. */
export async function aclDir(): Promise<{ dir: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'emq-acl-'));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** Server arguments that load an ACL file with the kind's deployed users, and the kind's own. */
export async function aclArgs(dir: string, kind: ServerKind): Promise<string[]> {
  const rules = kind.rules();
  const path = join(dir, `${kind.family}.acl`);
  await writeFile(
    path,
    [
      // The harness's own user: it probes, creates clusters and reads digests.
      'user default on nopass ~* &* +@all',
      `user ${FUNCTIONS_USER} >${PASSWORD} ${rules.functions}`,
      `user ${INSTALLER_USER} >${PASSWORD} ${rules.installer}`,
      '',
    ].join('\n'),
  );
  return ['--aclfile', path, ...kind.serverArgs];
}
