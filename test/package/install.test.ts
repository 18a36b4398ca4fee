// The package as users get it: the tarball `npm pack` makes, installed outside the repository
// beside the newest aws-cdk-lib and constructs the peer ranges admit. Its entries load in plain
// Node (no tsx, no loader), the core admits a job on a real server, the `emq` bin runs, a
// TypeScript consumer type-checks against the shipped declarations (synth.test.ts synthesizes
// CDK apps with it).
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { moduleArchitecture } from '../../infra/cache/selfmanaged/module-artifact.js';
import { isJobId } from '../../src/keyspace/ids.js';
import { OUTCOMES } from '../../src/outcomes/outcomes.js';
import { DEFAULTS } from '../../src/settings/config.js';
import { type InstalledPackage, installPackage } from '../support/package.js';
import { randomQueue, type ServerHandle, startStandalone } from '../support/servers.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TSC = join(ROOT, 'node_modules', '.bin', 'tsc');

interface Manifest {
  readonly private?: boolean;
  readonly repository: { readonly url: string };
  readonly peerDependenciesMeta: Readonly<Record<string, { readonly optional?: boolean }>>;
  readonly exports: Readonly<Record<string, string | Readonly<Record<string, string>>>>;
  readonly bin: Readonly<Record<string, string>>;
  readonly dependencies: Readonly<Record<string, string>>;
  readonly peerDependencies: Readonly<Record<string, string>>;
}
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Manifest;

let installed: InstalledPackage;
let server: ServerHandle;

beforeAll(async () => {
  [installed, server] = await Promise.all([installPackage(), startStandalone()]);
  // The newest aws-cdk-lib may not be in npm's cache yet: its download is part of the install.
}, 300_000);

afterAll(async () => {
  await Promise.all([installed?.remove(), server?.stop()]);
});

/** The installed package's folder. */
const packageDir = () => join(installed.dir, 'node_modules', 'echomq-lambda');

/** Runs an ES module in the consumer's folder with plain `node`; its stdout, or the failure. */
async function node(name: string, source: string, args: readonly string[] = []): Promise<string> {
  const path = await installed.write(name, source);
  const run = await installed.run(process.execPath, [path, ...args]);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  return run.stdout;
}

describe('the tarball', () => {
  it('holds the built package, what selfManaged deploys, the docs, README, LICENSE and CHANGELOG, and nothing else of the repository', () => {
    const shipped =
      /^(?:dist\/(?:core|cdk|client|chunks|types)\/.+|dist\/functions\/(?:http|sqs|fence|rotate)\/index\.mjs|dist\/cli\/emq\/index\.mjs|infra\/cache\/selfmanaged\/scripts\/[a-z-]+\.sh|module\/build\/emq(?:-arm64)?\.so|docs\/[a-z-]+\.md|openapi\/openapi\.yaml|README\.md|LICENSE|CHANGELOG\.md|package\.json)$/;
    expect(installed.files.filter((file) => !shipped.test(file))).toEqual([]);
  });

  it('holds no source map: no function runs with source maps enabled', () => {
    expect(installed.files.filter((file) => file.endsWith('.map'))).toEqual([]);
    const code = readFileSync(join(packageDir(), 'dist/functions/http/index.mjs'), 'utf8');
    expect(code).not.toContain('sourceMappingURL');
  });

  it("ships the module's x86_64 and arm64 builds, each built for its CPU", () => {
    expect(moduleArchitecture(join(packageDir(), 'module/build/emq.so'))).toBe('x86_64');
    expect(moduleArchitecture(join(packageDir(), 'module/build/emq-arm64.so'))).toBe('arm64');
  });

  it('resolves every link of the README and the docs it ships, in the tarball or at the repository', () => {
    const repository = manifest.repository.url.replace(/^git\+/, '').replace(/\.git$/, '');
    const pages = installed.files.filter(
      (file) => file === 'README.md' || file.startsWith('docs/'),
    );
    const broken: string[] = [];
    for (const page of pages) {
      const text = readFileSync(join(packageDir(), page), 'utf8');
      for (const [, target = ''] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const path = target.split('#')[0] ?? '';
        if (path === '' || /^https?:/.test(target)) {
          if (target.includes('github.com/') && !target.startsWith(`${repository}/`)) {
            broken.push(`${page}: ${target} (not the repository's address)`);
          }
          continue;
        }
        if (!installed.files.includes(join(dirname(page), path))) broken.push(`${page}: ${target}`);
      }
    }
    expect(pages.length).toBeGreaterThan(5);
    expect(broken).toEqual([]);
  });

  it('holds every entry package.json names, the four function bundles and the emq bin', () => {
    const targets = Object.values(manifest.exports).flatMap((target) =>
      typeof target === 'string' ? [target] : Object.values(target),
    );
    const expected = [
      ...targets,
      ...Object.values(manifest.bin),
      ...['http', 'sqs', 'fence', 'rotate'].map((name) => `dist/functions/${name}/index.mjs`),
    ].map((path) => path.replace(/^\.\//, ''));
    expect(expected.filter((path) => !installed.files.includes(path))).toEqual([]);
  });

  it('ships declarations that import only shipped files, dependencies, peers and Node', () => {
    const types = installed.files.filter((file) => file.startsWith('dist/types/'));
    const allowed = new Set([
      ...Object.keys(manifest.dependencies),
      ...Object.keys(manifest.peerDependencies),
    ]);
    const unresolved: string[] = [];
    for (const file of types) {
      const text = readFileSync(join(packageDir(), file), 'utf8');
      for (const [, specifier = ''] of text.matchAll(/(?:from |import\()['"]([^'"]+)['"]/g)) {
        const resolves = specifier.startsWith('.')
          ? types.includes(join(dirname(file), specifier.replace(/\.js$/, '.d.ts')))
          : specifier.startsWith('node:') ||
            allowed.has(
              specifier
                .split('/')
                .slice(0, specifier.startsWith('@') ? 2 : 1)
                .join('/'),
            );
        if (!resolves) unresolved.push(`${file}: ${specifier}`);
      }
    }
    expect(types).toContain('dist/types/src/index.d.ts');
    expect(unresolved).toEqual([]);
  });

  it('is public, with aws-cdk-lib and constructs as optional peers', () => {
    expect(manifest.private).toBeUndefined();
    expect(Object.keys(manifest.peerDependencies).sort()).toEqual(['aws-cdk-lib', 'constructs']);
    expect(manifest.peerDependenciesMeta).toEqual({
      'aws-cdk-lib': { optional: true },
      constructs: { optional: true },
    });
  });
});

describe('installed', () => {
  it('imports the core in plain Node, which admits a job on a real server', async () => {
    const queue = randomQueue('pkg');
    // The operator installs the library with the installed bin; the core entry is the producer's.
    const emq = join(installed.dir, 'node_modules', '.bin', 'emq');
    const installing = await installed.run(emq, ['install', '--url', server.url]);
    expect({ code: installing.code, stderr: installing.stderr }).toEqual({ code: 0, stderr: '' });
    const out = await node(
      'core.mjs',
      `import { EmqError, OUTCOMES, connect, enqueue, listPending, loadConfig, mintId, readJob } from 'echomq-lambda';
const [url, queue] = process.argv.slice(2);
const connection = await connect({ urls: [url], cluster: false });
try {
  const admitted = await enqueue(connection, { queue, payload: 'from the installed package' });
  const job = await readJob(connection, queue, admitted.id);
  const pending = await listPending(connection, queue, 10);
  const refused = await enqueue(connection, { queue: 'not a queue', payload: 'x' }).catch((error) => ({
    emqError: error instanceof EmqError,
    code: error.code,
  }));
  console.log(JSON.stringify({
    minted: mintId(),
    config: loadConfig({}),
    family: connection.family.name,
    admitted,
    job: { state: job.state, payload: job.payload.toString() },
    pending,
    refused,
    codes: Object.keys(OUTCOMES),
  }));
} finally {
  await connection.close();
}
`,
      [server.url, queue],
    );
    const seen = JSON.parse(out);
    expect(isJobId(seen.minted)).toBe(true);
    expect(seen.config).toEqual(JSON.parse(JSON.stringify(DEFAULTS)));
    // FCALL of the library the installed package loaded: its Lua text travelled inside dist/.
    expect(seen.family).toBe('function');
    expect(seen.admitted).toEqual({ queue, id: expect.any(String), status: 'enqueued' });
    expect(seen.job).toEqual({ state: 'pending', payload: 'from the installed package' });
    expect(seen.pending).toEqual({ ids: [seen.admitted.id], total: 1 });
    expect(seen.refused).toEqual({ emqError: true, code: 'EMQ_INVALID_QUEUE' });
    expect(seen.codes).toEqual(Object.keys(OUTCOMES));

    const client = await server.client();
    try {
      expect(await client.hget(`emq:{${queue}}:job:${seen.admitted.id}`, 'payload')).toBe(
        'from the installed package',
      );
      expect(await client.zrange(`emq:{${queue}}:pending`, 0, -1)).toEqual([seen.admitted.id]);
    } finally {
      client.disconnect();
    }
  });

  it('runs the emq bin from node_modules/.bin', async () => {
    const emq = join(installed.dir, 'node_modules', '.bin', 'emq');
    const help = await installed.run(emq, ['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: emq /);
    const id = await installed.run(emq, ['id']);
    expect(id.code).toBe(0);
    expect(isJobId(id.stdout.trim())).toBe(true);
  });

  it('imports the constructs, which deploy the bundles shipped in the package', async () => {
    const out = await node(
      'cdk.mjs',
      `import { App, Stack } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import { EchoMq, EchoMqCache } from 'echomq-lambda/cdk';
const stack = new Stack(new App(), 'Bundles');
const vpc = new ec2.Vpc(stack, 'Vpc');
console.log(new EchoMq(stack, 'EchoMq', { vpc, cache: EchoMqCache.elastiCache() }).deployment.bundleDir);
`,
    );
    expect(out.trim()).toBe(join(packageDir(), 'dist', 'functions'));
  });

  it('imports the client in plain Node', async () => {
    expect(await node('client.mjs', `await import('echomq-lambda/client');\n`)).toBe('');
  });

  it('type-checks a TypeScript consumer against its declarations (NodeNext and bundler)', async () => {
    await installed.write(
      'consumer.ts',
      `import { type Connection, EmqError, type ErrorCode, enqueue, loadConfig, mintId } from 'echomq-lambda';
import * as cdk from 'echomq-lambda/cdk';
import * as client from 'echomq-lambda/client';

export const code: ErrorCode = 'EMQ_CONFLICT';
export async function send(connection: Connection): Promise<'enqueued' | 'duplicate'> {
  return (await enqueue(connection, { queue: 'orders', payload: 'p', id: mintId() })).status;
}
// Types that resolved to any would accept this, and the directive would fail the check.
// @ts-expect-error the wire identity is a string
loadConfig({}).wire satisfies number;
export { cdk, client, EmqError };
`,
    );
    // skipLibCheck: checking aws-cdk-lib's own declarations would take most of the test's time;
    // what the shipped declarations import is checked above, and the directive catches any.
    const options = {
      target: 'ES2023',
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      types: ['node'],
    };
    const modes = { nodenext: ['NodeNext', 'NodeNext'], bundler: ['ESNext', 'Bundler'] };
    for (const [mode, [module, moduleResolution]] of Object.entries(modes)) {
      await installed.write(
        `tsconfig.${mode}.json`,
        JSON.stringify({
          compilerOptions: { ...options, module, moduleResolution },
          files: ['consumer.ts'],
        }),
      );
    }
    const runs = await Promise.all(
      Object.keys(modes).map((mode) => installed.run(TSC, ['-p', `tsconfig.${mode}.json`])),
    );
    expect(runs.map(({ code, stdout }) => ({ code, stdout }))).toEqual([
      { code: 0, stdout: '' },
      { code: 0, stdout: '' },
    ]);
  });
});
