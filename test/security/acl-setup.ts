// The two server kinds of the ACL tests, each with the users the stack deploys on it: an
// ACL file holding the harness's own user and the functions' and installer's users under the
// rules read from the synthesized template (deployed-rules.ts).
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExecutorChoice } from '../../src/index.js';
import {
  type DeployedRules,
  elastiCacheRules,
  FUNCTIONS_USER,
  INSTALLER_USER,
  selfManagedRules,
} from './deployed-rules.js';

export const PASSWORD = randomBytes(18).toString('hex');
export { FUNCTIONS_USER, INSTALLER_USER };

export interface ServerKind {
  readonly name: string;
  /** The server loads the EchoMQ module. */
  readonly module: boolean;
  /** The family the stack runs there (EMQ_EXECUTOR). */
  readonly executor: ExecutorChoice;
  readonly rules: () => DeployedRules;
}

let elastiCache: DeployedRules | undefined;
let selfManaged: DeployedRules | undefined;

export const KINDS: readonly ServerKind[] = [
  {
    name: 'ElastiCache-like server (no module, function family)',
    module: false,
    executor: 'function',
    rules: () => {
      elastiCache ??= elastiCacheRules();
      return elastiCache;
    },
  },
  {
    name: 'self-managed server (module, native family)',
    module: true,
    executor: 'native',
    rules: () => {
      selfManaged ??= selfManagedRules();
      return selfManaged;
    },
  },
];

/** A folder for ACL files; `remove` deletes it. */
export async function aclDir(): Promise<{ dir: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'emq-acl-'));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** Server arguments that load an ACL file with the kind's deployed users. */
export async function aclArgs(dir: string, kind: ServerKind): Promise<string[]> {
  const rules = kind.rules();
  const path = join(dir, `${kind.module ? 'selfmanaged' : 'elasticache'}.acl`);
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
  return ['--aclfile', path];
}
