/**
 * Checks HTTP responses against the OpenAPI document the project ships
 * (openapi/openapi.yaml): the operation is found by method and the path's tail as the face's
 * route table finds it (routes match at the end of the path, after any stage or base path; the
 * table is made of the document's operations), then the status must be declared,
 * every required header present and valid, and the body valid against the declared schema
 * (JSON Schema 2020-12, Ajv). A path the document does not describe must answer a problem.
 */
import { readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { parse } from 'yaml';
import { matchRoute } from '../../functions/http/routes.js';

export const OPENAPI_PATH = new URL('../../openapi/openapi.yaml', import.meta.url);

type Json = Record<string, unknown>;

export interface ContractRequest {
  readonly method: string;
  /** The path as the caller sent it, with any stage prefix. */
  readonly path: string;
}

export interface ContractResponse {
  readonly statusCode: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

const document = parse(readFileSync(OPENAPI_PATH, 'utf8')) as Json;
const ajv = new Ajv2020({ strict: false, validateSchema: false, allErrors: true });
ajv.addSchema(document, 'openapi');
const compiled = new Map<string, ValidateFunction>();

/** Throws an Error naming every way `response` departs from the document. */
export function assertMatchesContract(request: ContractRequest, response: ContractResponse): void {
  const problems = contractProblems(request, response);
  if (problems.length > 0) {
    throw new Error(
      `${request.method} ${request.path} -> ${response.statusCode} breaks openapi/openapi.yaml:\n  ${problems.join('\n  ')}\nbody: ${response.body.slice(0, 500)}`,
    );
  }
}

export function contractProblems(request: ContractRequest, response: ContractResponse): string[] {
  const method = request.method.toLowerCase();
  // The operation as the face's route table (made of the document's operations) finds it.
  const match = matchRoute(request.method.toUpperCase(), request.path.split('/').slice(1));
  if (match.kind !== 'operation') {
    // Unknown paths answer 404 and unknown methods 405: a problem, with Allow on a 405.
    const pointer =
      match.kind === 'methodNotAllowed' && response.statusCode === 405
        ? '/components/responses/MethodNotAllowed'
        : '/components/responses/NotFound';
    // A HEAD answer never has a body, wherever it was sent.
    return checkResponse(pointer, response, method === 'head');
  }
  const escaped = pointerSegment(match.operation.path);
  const pointer = `/paths/${escaped}/${method}/responses/${response.statusCode}`;
  if (resolve(pointer) === undefined) return [`status ${response.statusCode} is not declared`];
  return checkResponse(pointer, response, method === 'head');
}

function checkResponse(pointer: string, response: ContractResponse, head: boolean): string[] {
  const { at, value } = follow(pointer);
  const problems: string[] = [];
  const headers = (value.headers ?? {}) as Record<string, Json>;
  for (const name of Object.keys(headers)) {
    const header = follow(`${at}/headers/${pointerSegment(name)}`);
    const sent = response.headers[name.toLowerCase()];
    if (sent === undefined) {
      if (header.value.required === true) problems.push(`header ${name} is missing`);
      continue;
    }
    const check = validator(`${header.at}/schema`);
    if (!check(sent)) problems.push(`header ${name}: ${ajv.errorsText(check.errors)}`);
  }
  const content = value.content as Record<string, unknown> | undefined;
  if (head || content === undefined) {
    if (response.body !== '') problems.push('the body must be empty');
    return problems;
  }
  const type = (response.headers['content-type'] ?? '').split(';')[0]?.trim() ?? '';
  if (!(type in content)) {
    problems.push(
      `content-type ${JSON.stringify(type)} is not one of ${Object.keys(content).join(', ')}`,
    );
    return problems;
  }
  let body: unknown;
  try {
    body = JSON.parse(response.body);
  } catch {
    problems.push('the body is not JSON');
    return problems;
  }
  const check = validator(`${at}/content/${pointerSegment(type)}/schema`);
  if (!check(body)) problems.push(`body: ${ajv.errorsText(check.errors)}`);
  return problems;
}

function validator(pointer: string): ValidateFunction {
  let check = compiled.get(pointer);
  if (check === undefined) {
    check = ajv.compile({ $ref: `openapi#${pointer}` });
    compiled.set(pointer, check);
  }
  return check;
}

/** Follows `$ref`s from a JSON pointer to the object it names, and where that object lives. */
function follow(pointer: string): { at: string; value: Json } {
  let at = pointer;
  let value = resolve(at);
  while (value !== undefined && typeof value.$ref === 'string') {
    at = value.$ref.slice(1);
    value = resolve(at);
  }
  if (value === undefined) throw new Error(`openapi/openapi.yaml has nothing at ${pointer}`);
  return { at, value };
}

function resolve(pointer: string): Json | undefined {
  let node: unknown = document;
  for (const raw of pointer.split('/').slice(1)) {
    const key = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Json)[key];
  }
  return typeof node === 'object' && node !== null ? (node as Json) : undefined;
}

function pointerSegment(segment: string): string {
  return segment.replaceAll('~', '~0').replaceAll('/', '~1');
}
