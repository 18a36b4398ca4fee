/**
 * The repository's CDK app synthesized as `npm run synth` does (the CDK CLI, cdk.json's app and
 * context, offline), read into what the local stack needs (template.ts). A synthesis takes tens
 * of seconds, so its result is kept per content of what the template is made from: infra/,
 * every project file infra/app/app.ts imports, the OpenAPI document, cdk.json, the lockfile and
 * the reader (template.ts).
 * A start after any change to those synthesizes again; every other start reads the kept result.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { type DeployedSettings, deployedSettings, TemplateError } from './template.js';

export class SynthesisError extends Error {}

/** The stack's settings, from the kept synthesis where its inputs are unchanged. */
export async function synthesizedSettings(
  projectDir: string,
  print: (text: string) => void = () => {},
): Promise<DeployedSettings> {
  const kept = join(
    projectDir,
    'node_modules',
    '.cache',
    'echomq-lambda',
    `deployed-${inputsDigest(projectDir)}.json`,
  );
  if (existsSync(kept)) return JSON.parse(await readFile(kept, 'utf8')) as DeployedSettings;
  print(
    'Synthesizing the stack, as npm run synth does, to serve what it deploys (once per change to infra/ and what it reads)...',
  );
  const settings = await synthesize(projectDir);
  await mkdir(dirname(kept), { recursive: true });
  const partial = `${kept}.${process.pid}.partial`;
  await writeFile(partial, JSON.stringify(settings));
  await rename(partial, kept);
  return settings;
}

/** `cdk synth` into a folder of its own; the stack's template, read. */
async function synthesize(projectDir: string): Promise<DeployedSettings> {
  const out = await mkdtemp(join(tmpdir(), 'emq-synth-'));
  try {
    const cdk = join(projectDir, 'node_modules', '.bin', 'cdk');
    const { code, stderr } = await run(
      cdk,
      ['synth', '--quiet', '--no-notices', '--output', out],
      projectDir,
    );
    if (code !== 0) {
      throw new SynthesisError(
        `The stack does not synthesize (npm run synth), so there is nothing to serve locally:\n${stderr.trim().split('\n').slice(-15).join('\n')}`,
      );
    }
    const template = JSON.parse(await readFile(join(out, stackTemplate(out)), 'utf8')) as unknown;
    try {
      return deployedSettings(template);
    } catch (error) {
      if (error instanceof TemplateError) throw new SynthesisError(error.message);
      throw error;
    }
  } finally {
    await rm(out, { recursive: true, force: true });
  }
}

/** The one stack of the cloud assembly in `out`: its template file. */
function stackTemplate(out: string): string {
  const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as {
    artifacts?: Record<string, { type?: string; properties?: { templateFile?: string } }>;
  };
  const stacks = Object.values(manifest.artifacts ?? {}).filter(
    (artifact) => artifact.type === 'aws:cloudformation:stack',
  );
  const file = stacks[0]?.properties?.templateFile;
  if (stacks.length !== 1 || file === undefined) {
    throw new SynthesisError(`The CDK app synthesized ${stacks.length} stacks; expected one.`);
  }
  return file;
}

function run(
  command: string,
  args: readonly string[],
  cwd: string,
): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, {
      cwd,
      stdio: ['ignore', 'ignore', 'pipe'],
      // Offline: no version check, no telemetry (notices are off by --no-notices).
      env: { ...process.env, CDK_DISABLE_VERSION_CHECK: '1', CDK_DISABLE_CLI_TELEMETRY: 'true' },
    });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.once('error', reject);
    child.once('close', (code) => resolvePromise({ code, stderr }));
  });
}

/**
 * A digest of what the template is made from: every file under infra/ and openapi/, the
 * project files infra/app/app.ts reaches through relative imports, cdk.json, the lockfile, and the
 * reader of the template.
 */
export function inputsDigest(projectDir: string): string {
  const files = new Set<string>();
  for (const dir of ['infra', 'openapi'])
    for (const file of filesUnder(join(projectDir, dir))) files.add(file);
  const pending = [join(projectDir, 'infra', 'app', 'app.ts')];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (!existsSync(file)) continue;
    files.add(file);
    if (!file.endsWith('.ts')) continue;
    for (const [, specifier] of readFileSync(file, 'utf8').matchAll(
      /(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g,
    )) {
      const target = resolve(dirname(file), specifier as string).replace(/\.js$/, '.ts');
      if (!files.has(target)) pending.push(target);
    }
  }
  // And how the template is read: a change there must not be served from an older reading.
  for (const name of ['cdk.json', 'package-lock.json', 'scripts/local/template.ts']) {
    files.add(join(projectDir, name));
  }
  const digest = createHash('sha256');
  for (const file of [...files].sort()) {
    if (!existsSync(file)) continue;
    digest.update(`${relative(projectDir, file)}\0`);
    digest.update(readFileSync(file));
    digest.update('\0');
  }
  return digest.digest('hex').slice(0, 32);
}

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}
