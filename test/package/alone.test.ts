// A producer installs the package for its client alone: the CDK peers are optional, so
// `npm install echomq-lambda` brings the package and its own dependencies and no CDK. The
// installed folder stays under a size budget, and the client and the core load in plain Node.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type InstalledPackage, installPackage } from '../support/package.js';

/** What a producer's node_modules may weigh with the package alone. */
const BUDGET_BYTES = 40 * 1024 * 1024;

let installed: InstalledPackage;

beforeAll(async () => {
  installed = await installPackage([], 'alone');
}, 300_000);

afterAll(async () => {
  await installed?.remove();
});

/** The bytes of every file under `dir` (their sizes, not the blocks a file system rounds to). */
function bytesUnder(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += bytesUnder(path);
    else if (entry.isFile()) total += statSync(path).size;
  }
  return total;
}

describe('installed alone, for its client', () => {
  it('brings no CDK', () => {
    const top = readdirSync(join(installed.dir, 'node_modules'));
    expect(top).toContain('echomq-lambda');
    expect(top.filter((name) => ['aws-cdk-lib', 'constructs', 'cdk-nag'].includes(name))).toEqual(
      [],
    );
  });

  it('fits node_modules in 40 MB', () => {
    const bytes = bytesUnder(join(installed.dir, 'node_modules'));
    expect(bytes, `node_modules holds ${(bytes / 1024 / 1024).toFixed(1)} MB`).toBeLessThanOrEqual(
      BUDGET_BYTES,
    );
  });

  it('loads the client and the core in plain Node', async () => {
    const path = await installed.write(
      'load.mjs',
      `const client = await import('echomq-lambda/client');
const core = await import('echomq-lambda');
console.log(JSON.stringify([typeof client.EchoMqClient, typeof client.sqsEntry, typeof core.mintId]));
`,
    );
    const run = await installed.run(process.execPath, [path]);
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(run.stdout)).toEqual(['function', 'function', 'function']);
  });

  it('refuses ./cdk by naming the peer to install', async () => {
    const path = await installed.write('cdk.mjs', `await import('echomq-lambda/cdk');\n`);
    const run = await installed.run(process.execPath, [path]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/Cannot find package '(?:aws-cdk-lib|constructs)'/);
  });
});
