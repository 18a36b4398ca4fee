// What the client may import (docs/architecture.md): its own files, the core's id minting and
// Node's modules; the AWS SDK as types, or by a dynamic import() at the first use, so a client
// that signs nothing never loads the signer. Never Valkey.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const DIR = fileURLToPath(new URL('../../client/', import.meta.url));
const FILES = readdirSync(DIR).filter((name) => name.endsWith('.ts'));
/** The core's one file the client loads: id minting (no I/O, no import of the core's). */
const CORE = ['../src/keyspace/ids.js'];

/** Every static import of a file that is loaded at run time: `import type` is erased. */
function runtimeImports(source: string): string[] {
  return [...source.matchAll(/^(?:import|export)(?! type)[^;]*?from '([^']+)';/gms)].map(
    ([, from]) => from ?? '',
  );
}

describe('client/', () => {
  it.each(FILES)(
    '%s imports only its own files, src/keyspace/ids.ts and node: at load time',
    (file) => {
      const source = readFileSync(`${DIR}${file}`, 'utf8');
      const outside = runtimeImports(source).filter(
        (from) => !from.startsWith('./') && !CORE.includes(from) && !from.startsWith('node:'),
      );
      expect(outside).toEqual([]);
      expect(source).not.toMatch(/iovalkey/);
    },
  );

  it('loads the AWS SDK only by dynamic import', () => {
    const dynamic = FILES.flatMap((file) => [
      ...readFileSync(`${DIR}${file}`, 'utf8').matchAll(
        /await import\('([^']+)'\)|import\('([^']+)'\)/g,
      ),
    ]).map(([, a, b]) => a ?? b);
    expect(new Set(dynamic)).toEqual(
      new Set([
        '@aws-sdk/signature-v4-multi-region',
        '@smithy/core/checksum',
        '@aws-sdk/credential-provider-node',
        '@aws-sdk/client-sqs',
      ]),
    );
  });
});
