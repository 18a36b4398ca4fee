/**
 * Runs the built HTTP function (dist/functions/http/index.mjs) in a plain Node process, as the
 * Lambda runtime does, with only the environment given: that is where a deployment's TLS
 * settings (EMQ_URL, NODE_EXTRA_CA_CERTS) take effect, which no in-process test can change.
 */
import { execFile } from 'node:child_process';
import { statSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { HttpResponse } from '../../functions/http/responses.js';
import { type HttpEventJson, lambdaContext } from '../fixtures/http/events.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BUNDLE = join(ROOT, 'dist/functions/http/index.mjs');
const SOURCES = ['src', 'functions/http', 'functions/shared'];

// Serves one event, prints the response on a RESULT line and exits, as a container would end.
const CHILD = `
const [bundle, event, context] = process.argv.slice(1);
const { handler } = await import(bundle);
const response = await handler(JSON.parse(event), { ...JSON.parse(context), getRemainingTimeInMillis: () => 30000 });
process.stdout.write('RESULT ' + JSON.stringify(response) + '\\n');
process.exit(0);
`;

/** Builds the bundles when the HTTP one is missing or older than its sources. */
export async function ensureHttpBundle(): Promise<void> {
  let newest = 0;
  for (const folder of SOURCES) {
    for (const entry of await readdir(join(ROOT, folder), {
      recursive: true,
      withFileTypes: true,
    })) {
      if (entry.isFile())
        newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
    }
  }
  let built = 0;
  try {
    built = statSync(BUNDLE).mtimeMs;
  } catch {}
  if (built < newest) await run('npm', ['run', '-s', 'build'], { cwd: ROOT, timeout: 120_000 });
}

/** Serves `event` with the bundle in a fresh Node process whose environment is exactly `env`. */
export async function serveWithBundle(
  event: HttpEventJson,
  env: Readonly<Record<string, string>>,
): Promise<HttpResponse> {
  const { getRemainingTimeInMillis: _, ...context } = lambdaContext();
  const { stdout } = await run(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      CHILD,
      new URL(`file://${BUNDLE}`).href,
      JSON.stringify(event),
      JSON.stringify(context),
    ],
    { env: { PATH: process.env.PATH, ...env }, timeout: 20_000 },
  );
  const result = stdout.split('\n').find((line) => line.startsWith('RESULT '));
  if (result === undefined) throw new Error('the bundle printed no response');
  return JSON.parse(result.slice('RESULT '.length)) as HttpResponse;
}
