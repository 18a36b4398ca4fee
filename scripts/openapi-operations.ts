/**
 * Writes openapi/operations.ts, the operations of openapi/openapi.yaml (method, path,
 * operationId) as a module: the construct routes them on every API kind and the HTTP face's
 * route table is made of them, so the document is their one source. Run it after changing
 * the document's paths: `npx tsx scripts/openapi-operations.ts`; a test fails while the module
 * and the document differ.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
type Method = (typeof METHODS)[number];

export const DOCUMENT = fileURLToPath(new URL('../openapi/openapi.yaml', import.meta.url));
export const MODULE = fileURLToPath(new URL('../openapi/operations.ts', import.meta.url));

interface Document {
  readonly paths: Record<string, Record<string, { operationId?: string } | unknown>>;
}

/** The module's text for the document's text. */
export function operationsModule(documentText: string): string {
  const document = parse(documentText) as Document;
  // In the document's order, which the face's 404 text lists them in.
  const rows = Object.entries(document.paths).flatMap(([path, item]) =>
    Object.keys(item)
      .filter((key): key is Method => (METHODS as readonly string[]).includes(key))
      .map((method) => {
        const operation = item[method] as { operationId?: string };
        if (operation.operationId === undefined) {
          throw new Error(`${method.toUpperCase()} ${path} has no operationId`);
        }
        return `  { method: '${method.toUpperCase()}', path: '${path}', operationId: '${operation.operationId}' },`;
      }),
  );
  return [
    '// Generated from openapi/openapi.yaml by scripts/openapi-operations.ts: do not edit.',
    '',
    '/** Every operation of the HTTP face: the routes an API must send to the function. */',
    'export const OPERATIONS = [',
    ...rows,
    '] as const;',
    '',
    'export type Operation = (typeof OPERATIONS)[number];',
    '',
    "export type OperationId = Operation['operationId'];",
    '',
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(MODULE, operationsModule(readFileSync(DOCUMENT, 'utf8')));
}
