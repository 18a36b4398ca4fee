// `npx emq` as a newcomer types it in the repository, on the machine's own Node (the PATH
// without the repository's node_modules/.bin, where the `node` devDependency puts Node 22):
// after the build's link (scripts/npx-link.ts), the first call prints the CLI's answer and
// nothing of npm's, where it printed an EBADENGINE block for every fresh checkout.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { linkForNpx } from '../../scripts/npx-link.js';
import { assertBuilt } from '../support/cli.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** npm's cache for this test alone, so its npx cache starts empty, as in a fresh checkout. */
const cache = mkdtempSync(join(tmpdir(), 'emq-npm-cache-'));

afterAll(() => rmSync(cache, { recursive: true, force: true }));

/** The shell's PATH: no node_modules/.bin, so `npx` and `node` are the machine's. */
const machinePath = (process.env.PATH ?? '')
  .split(delimiter)
  .filter((dir) => !dir.includes('node_modules'))
  .join(delimiter);

it("answers the first npx emq on the machine's Node without an npm warning", () => {
  assertBuilt();
  const env = { ...process.env, npm_config_cache: cache };
  expect(linkForNpx(ROOT, env)).toBeUndefined();
  const machineNode = spawnSync('node', ['--version'], {
    env: { ...env, PATH: machinePath },
    encoding: 'utf8',
  });
  const run = spawnSync('npx', ['emq', 'id'], {
    cwd: ROOT,
    env: { ...env, PATH: machinePath },
    encoding: 'utf8',
  });
  expect(run.stderr, `npx on Node ${machineNode.stdout.trim()}`).toBe('');
  expect(run.status).toBe(0);
  expect(run.stdout).toMatch(/^JOB[0-9A-Za-z]{11}\n$/);
}, 60_000);
