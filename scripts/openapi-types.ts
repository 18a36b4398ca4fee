/**
 * Writes client/contract.ts, the TypeScript types of the HTTP face's schemas (and the patterns
 * of its parameters), from
 * openapi/openapi.yaml: `npx tsx scripts/openapi-types.ts`. The generated file is checked in,
 * and test/unit/client-contract.test.ts fails when it and the document disagree.
 *
 * The document uses a small part of JSON Schema (objects, arrays, enums, $ref, oneOf, anyOf,
 * allOf), so a short translator serves instead of a generator package. An object that does
 * not close itself (no `additionalProperties: false`) keeps an index signature: a member the
 * face adds later (a problem's new advice) is readable without a new client. The text is laid
 * out by the project's own formatter (Biome), so `npm run check` and the generator agree.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

export const DOCUMENT = fileURLToPath(new URL('../openapi/openapi.yaml', import.meta.url));
export const TYPES = fileURLToPath(new URL('../client/contract.ts', import.meta.url));
const BIOME = fileURLToPath(new URL('../node_modules/.bin/biome', import.meta.url));

type Schema = Readonly<Record<string, unknown>>;

const HEADER = `/**
 * The HTTP face's schemas as types, and its parameters' patterns. Generated from
 * openapi/openapi.yaml by scripts/openapi-types.ts: do not edit; run
 * \`npx tsx scripts/openapi-types.ts\` after changing the document.
 */
`;

interface Document {
  readonly components?: {
    readonly schemas?: Record<string, Schema>;
    readonly parameters?: Record<string, { readonly name?: string; readonly schema?: Schema }>;
  };
}

/**
 * The module text: a type for each of the document's `components.schemas`, in its order, and
 * the patterns its parameters give (the queue, the idempotency key), so a client checks input
 * by the same rule the document states.
 */
export function contractTypes(yamlText: string): string {
  const document = parse(yamlText) as Document;
  const schemas = document.components?.schemas ?? {};
  const blocks = Object.entries(schemas).map(([name, schema]) => {
    const doc = comment(schema.description, '');
    return `${doc}export type ${name} = ${typeOf(schema, '')};\n`;
  });
  const patterns = Object.entries(document.components?.parameters ?? {}).flatMap(
    ([name, parameter]) => {
      const pattern = parameter.schema?.pattern;
      if (typeof pattern !== 'string') return [];
      const doc = `/** The pattern of the \`${parameter.name ?? name}\` parameter. */\n`;
      return [`${doc}export const ${name}Pattern = /${pattern.replace(/\//g, '\\/')}/;\n`];
    },
  );
  return formatted(`${HEADER}\n${[...blocks, ...patterns].join('\n')}`);
}

function formatted(text: string): string {
  return execFileSync(BIOME, ['format', `--stdin-file-path=${TYPES}`], {
    input: text,
    encoding: 'utf8',
  });
}

function typeOf(schema: Schema, indent: string): string {
  if (typeof schema.$ref === 'string') return refName(schema.$ref);
  if (Array.isArray(schema.enum)) return schema.enum.map((value) => literal(value)).join(' | ');
  for (const keyword of ['oneOf', 'anyOf'] as const) {
    const members = schema[keyword];
    if (Array.isArray(members)) {
      return members.map((member: Schema) => group(typeOf(member, indent))).join(' | ');
    }
  }
  if (Array.isArray(schema.allOf)) {
    return schema.allOf.map((member: Schema) => group(typeOf(member, indent))).join(' & ');
  }
  switch (schema.type) {
    case 'string':
      return 'string';
    case 'integer':
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'array':
      return `readonly ${group(typeOf((schema.items ?? {}) as Schema, indent))}[]`;
    case 'object':
      return objectOf(schema, indent);
    default:
      throw new Error(
        `openapi-types: a schema without a type this generator knows: ${JSON.stringify(schema)}`,
      );
  }
}

function objectOf(schema: Schema, indent: string): string {
  const inner = `${indent}  `;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const properties = Object.entries((schema.properties ?? {}) as Record<string, Schema>);
  const lines = properties.map(([name, property]) => {
    const optional = required.has(name) ? '' : '?';
    return `${comment(property.description, inner)}${inner}readonly ${name}${optional}: ${typeOf(property, inner)};\n`;
  });
  if (schema.additionalProperties !== false) {
    lines.push(`${inner}readonly [member: string]: unknown;\n`);
  }
  return `{\n${lines.join('')}${indent}}`;
}

function refName(ref: string): string {
  const prefix = '#/components/schemas/';
  if (!ref.startsWith(prefix)) throw new Error(`openapi-types: a $ref outside the schemas: ${ref}`);
  return ref.slice(prefix.length);
}

function literal(value: unknown): string {
  return typeof value === 'string' ? `'${value.replace(/'/g, "\\'")}'` : JSON.stringify(value);
}

/** A union or intersection inside another, or under `[]`, needs parentheses. */
function group(type: string): string {
  return /^[\w.]+$/.test(type) || type.startsWith('{') ? type : `(${type})`;
}

/** The first paragraph of a description as a JSDoc line, or nothing. */
function comment(description: unknown, indent: string): string {
  if (typeof description !== 'string') return '';
  const text = description.split('\n\n')[0]?.replace(/\s+/g, ' ').trim() ?? '';
  return text === '' ? '' : `${indent}/** ${text.replace(/\*\//g, '*\\/')} */\n`;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(TYPES, contractTypes(readFileSync(DOCUMENT, 'utf8')));
  console.log(`openapi-types: wrote ${TYPES}`);
}
