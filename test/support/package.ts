/**
 * The package as users get it: `npm pack` of this repository (its prepack builds dist/ and
 * the declarations), installed from the tarball into a fresh folder outside the repository,
 * either as a platform team's CDK app would install it (beside the newest aws-cdk-lib and
 * constructs the peer ranges admit) or as a producer installs it for its client alone (no
 * peers). Other packages come at the versions this repository uses, from npm's cache where it
 * holds them (`npm ci` filled it).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

const MANIFEST = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  readonly peerDependencies: Readonly<Record<string, string>>;
};

/**
 * What is installed beside the tarball: `cdk` is a CDK app's install (the peers, each at the
 * newest version its range admits, and Node's types for TypeScript); `alone` is a producer's
 * (the package and its own dependencies, nothing else).
 */
export type Beside = 'cdk' | 'alone';

export interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface InstalledPackage {
  /** The consumer's folder: its package.json, and the package in node_modules/echomq-lambda. */
  readonly dir: string;
  /** Every path in the tarball, relative to the package's folder (`dist/...`, `README.md`). */
  readonly files: readonly string[];
  /** Runs a program in the consumer's folder, with this Node first on PATH and no loader. */
  run(file: string, args?: readonly string[], env?: Readonly<Record<string, string>>): Promise<Run>;
  /** Writes a file into the consumer's folder and returns its path. */
  write(name: string, text: string): Promise<string>;
  /** Deletes the tarball and the consumer's folder. */
  remove(): Promise<void>;
}

/**
 * Packs the repository and installs the tarball with what `beside` names and `extra` (package
 * names, at the versions in this repository's node_modules) into a fresh folder under the
 * system's temporary folder.
 */
export async function installPackage(
  extra: readonly string[] = [],
  beside: Beside = 'cdk',
): Promise<InstalledPackage> {
  const packed = await mkdtemp(join(tmpdir(), 'emq-pack-'));
  const dir = await mkdtemp(join(tmpdir(), 'emq-consumer-'));
  const run = (
    file: string,
    args: readonly string[] = [],
    cwd = dir,
    env: Readonly<Record<string, string>> = {},
  ) => spawned(file, args, cwd, env);
  const remove = async () => {
    await Promise.all([packed, dir].map((path) => rm(path, { recursive: true, force: true })));
  };
  try {
    await succeeded(run('npm', ['pack', '--pack-destination', packed], ROOT), 'npm pack');
    const [tarball, ...others] = await readdir(packed);
    if (tarball === undefined || others.length > 0) {
      throw new Error(`npm pack wrote ${[tarball, ...others].join(', ')}, not one tarball`);
    }
    const listing = await succeeded(run('tar', ['-tzf', join(packed, tarball)]), 'tar');
    const files = listing
      .split('\n')
      .filter((line) => line !== '' && !line.endsWith('/'))
      .map((line) => line.replace(/^package\//, ''));
    await writeFile(
      join(dir, 'package.json'),
      JSON.stringify({ name: 'emq-consumer', private: true, type: 'module' }),
    );
    const peers =
      beside === 'cdk'
        ? [
            ...Object.entries(MANIFEST.peerDependencies).map(([name, range]) => `${name}@${range}`),
            `@types/node@${repositoryVersion('@types/node')}`,
          ]
        : [];
    const extras = extra.map((name) => `${name}@${repositoryVersion(name)}`);
    // No --prefer-offline: the peer ranges resolve against the registry's current list, so the
    // app gets the newest aws-cdk-lib a user installing today would; tarballs still come from
    // npm's cache where it holds them.
    await succeeded(
      run('npm', [
        'install',
        '--no-audit',
        '--no-fund',
        join(packed, tarball),
        ...peers,
        ...extras,
      ]),
      'npm install',
    );
    return {
      dir,
      files,
      run: (file, args, env) => run(file, args, dir, env),
      write: async (name, text) => {
        const path = join(dir, name);
        await writeFile(path, text);
        return path;
      },
      remove,
    };
  } catch (error) {
    await remove();
    throw error;
  }
}

/** The version of a package this repository installed, so npm finds it in its cache. */
function repositoryVersion(name: string): string {
  const manifest = join(ROOT, 'node_modules', name, 'package.json');
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
}

async function succeeded(running: Promise<Run>, what: string): Promise<string> {
  const { code, stdout, stderr } = await running;
  if (code !== 0) throw new Error(`${what} exited with ${code}:\n${stderr}${stdout}`);
  return stdout;
}

/**
 * A child process in `cwd`. npm's own variables (set when the suite runs under `npm test`:
 * this repository's folder among them) are dropped but its cache's, so an npm inside
 * installs into `cwd` and nowhere else; so are the EMQ_* settings and NODE_OPTIONS (no
 * loader may help).
 */
function spawned(
  file: string,
  args: readonly string[],
  cwd: string,
  extra: Readonly<Record<string, string>> = {},
): Promise<Run> {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) =>
        (!/^npm_/i.test(name) || name === 'npm_config_cache') &&
        !name.startsWith('EMQ_') &&
        name !== 'NODE_OPTIONS',
    ),
  );
  Object.assign(env, extra);
  env.PATH = [dirname(process.execPath), process.env.PATH].join(delimiter);
  const child = spawn(file, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) =>
      resolve({
        code,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
      }),
    );
  });
}
