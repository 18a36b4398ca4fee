/**
 * `npx emq` in the repository runs the project's own bin, which npm installs into its npx
 * cache (a link to the project) the first time. That install checks the package's engines
 * (Node 22 or later) against the Node npm itself runs on: from a shell, the machine's Node (20
 * on Debian 12), although the bin then runs on the repository's Node 22 (the `node`
 * devDependency; npm puts node_modules/.bin first on the bin's PATH). So the first `npx emq`
 * of a checkout printed an EBADENGINE block. The build makes that one install itself, with
 * npm running on the build's own Node, once the bin it links exists: the check then judges the
 * Node the CLI runs on, and later `npx emq` calls find the link made.
 */
import { spawnSync } from 'node:child_process';
import { delimiter, dirname } from 'node:path';

/**
 * Links the project's `emq` into npm's npx cache. Returns npm's complaint when it could not
 * (the build goes on: only `npx emq` depends on it).
 */
export function linkForNpx(
  projectDir: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): string | undefined {
  const run = spawnSync('npm', ['exec', '--yes', '--', 'emq', '--version'], {
    cwd: projectDir,
    encoding: 'utf8',
    // npm and the bin's `#!/usr/bin/env node` resolve to the Node running this build.
    env: { ...env, PATH: `${dirname(process.execPath)}${delimiter}${env.PATH ?? ''}` },
  });
  return run.status === 0 ? undefined : `${run.stderr}${run.stdout}`.trim();
}
