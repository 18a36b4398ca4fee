/**
 * Reads the three HTTP event shapes that reach this function (API Gateway HTTP API payload
 * 2.0, REST API / payload 1.0, Lambda Function URLs) into one request. The event is read
 * defensively: a direct invoke can send anything, and a malformed event must answer 400,
 * never crash the container.
 */
import { InvalidInputError } from '../../src/outcomes/outcomes.js';
import { decodeBase64, decodedLength } from '../shared/base64.js';
import { hasLoneSurrogate } from './strict-json.js';

/**
 * The most body bytes one request may carry: Lambda's synchronous invocation limit (6 MiB),
 * which no request through API Gateway or a Function URL can pass. A larger body is refused
 * (413) from its length, before it is decoded, whatever the event's form.
 */
export const MAX_REQUEST_BYTES = 6 * 1024 * 1024;

/** Which shape the event had; logged, so operators can tell the fronts apart. */
export type EventFormat = 'v2' | 'v1' | 'url';

export interface HttpRequest {
  readonly format: EventFormat;
  /** Upper-case method, e.g. `POST`. */
  readonly method: string;
  /** A HEAD request: its answer is the GET's without the body. */
  readonly head: boolean;
  /** The path's segments, percent-decoded exactly once, without the empty leading one. */
  readonly segments: readonly string[];
  /**
   * The segments, decoded, that the caller's URL holds before the routed path and the event
   * leaves out of it (the REST stage, e.g. `['prod']`); put in front of `Location`, encoded
   * as any segment is (routes.ts). Empty for payload 2.0, whose raw path holds the stage.
   */
  readonly mount: readonly string[];
  /** Header names in lower case; a repeated header keeps its last value (see `repeated`). */
  readonly headers: Readonly<Record<string, string>>;
  /**
   * Lower-case names of headers the caller sent more than once, where the event can tell:
   * under two spellings in one map, several values in payload 1.0's multiValueHeaders, or
   * 1.0's two maps disagreeing. Payload 2.0 and Function URLs join repeated values with a
   * comma, so there a comma inside a value is all that shows.
   */
  readonly repeated: ReadonlySet<string>;
  /** The body bytes, base64-decoded when the event says so; empty when there is none. */
  readonly body: Buffer;
}

type Fields = Readonly<Record<string, unknown>>;

/**
 * An event, read once: the request, or why it is refused. `head` is known either way, as a
 * HEAD answer never has a body (RFC 9110), even when the event is refused before its path or
 * body are read.
 */
export type ReadEvent =
  | { readonly head: boolean; readonly request: HttpRequest; readonly refusal?: undefined }
  | { readonly head: boolean; readonly refusal: InvalidInputError; readonly request?: undefined };

/** Reads an HTTP event. Refuses (EMQ_INVALID_REQUEST) one that is not of the three shapes. */
export function readEvent(event: unknown): ReadEvent {
  const fields = objectOf(event);
  // Payload 1.0's httpMethod when it is a string, else 2.0's requestContext.http.method.
  const v1 = typeof fields?.httpMethod === 'string';
  const sent = v1 ? fields?.httpMethod : objectOf(objectOf(fields?.requestContext)?.http)?.method;
  if (fields === undefined || typeof sent !== 'string') return { head: false, refusal: notHttp() };
  const method = sent.toUpperCase();
  const head = method === 'HEAD';
  try {
    if (v1) return { head, request: parseV1(fields, method, head) };
    if (typeof fields.rawPath === 'string') {
      return { head, request: parseV2(fields, fields.rawPath, method, head) };
    }
    return { head, refusal: notHttp() };
  } catch (error) {
    // A field, the path's encoding or the body: what the caller sent is refused, with its HEAD kept.
    if (error instanceof InvalidInputError) return { head, refusal: error };
    throw error;
  }
}

/**
 * What each field the fronts send must be, where it is sent (absent and `null` are "not
 * sent": payload 1.0 sends `null` for what a request lacks). A field of another type is
 * refused rather than read as absent: a body that is an object is not an empty body, a
 * header that is a number is not a missing one (docs/security.md, "Fail closed"). Function
 * URLs send payload 2.0's shape. Fields the fronts send that this function never reads (the
 * caller's identity, authorizer claims) are not checked.
 */
type Shape = 'string' | 'boolean' | 'number' | 'strings' | 'object' | 'stringMap' | 'listMap';

const SHAPES: Readonly<Record<'common' | 'v1' | 'v2', Readonly<Record<string, Shape>>>> = {
  common: {
    body: 'string',
    isBase64Encoded: 'boolean',
    headers: 'stringMap',
    pathParameters: 'stringMap',
    stageVariables: 'stringMap',
    queryStringParameters: 'stringMap',
    requestContext: 'object',
    'requestContext.domainName': 'string',
    'requestContext.domainPrefix': 'string',
    'requestContext.stage': 'string',
    'requestContext.requestId': 'string',
    'requestContext.accountId': 'string',
    'requestContext.apiId': 'string',
  },
  v1: {
    httpMethod: 'string',
    path: 'string',
    resource: 'string',
    multiValueHeaders: 'listMap',
    multiValueQueryStringParameters: 'listMap',
    'requestContext.path': 'string',
    'requestContext.httpMethod': 'string',
    'requestContext.resourcePath': 'string',
    'requestContext.requestTimeEpoch': 'number',
  },
  v2: {
    // A string would have made the event payload 1.0: here any other value is refused.
    httpMethod: 'string',
    version: 'string',
    routeKey: 'string',
    rawPath: 'string',
    rawQueryString: 'string',
    cookies: 'strings',
    'requestContext.routeKey': 'string',
    'requestContext.timeEpoch': 'number',
    'requestContext.http': 'object',
    'requestContext.http.method': 'string',
    'requestContext.http.path': 'string',
    'requestContext.http.protocol': 'string',
    'requestContext.http.sourceIp': 'string',
    'requestContext.http.userAgent': 'string',
  },
};

const SHAPE_NAMES: Readonly<Record<Shape, string>> = {
  string: 'a string',
  boolean: 'a boolean',
  number: 'a number',
  strings: 'a list of strings',
  object: 'an object',
  stringMap: 'an object of strings',
  listMap: 'an object of non-empty lists of strings',
};

/** Throws EMQ_INVALID_REQUEST naming the first field of `fields` that is not of its shape. */
function checkShapes(fields: Fields, format: 'v1' | 'v2'): void {
  for (const table of [SHAPES.common, SHAPES[format]]) {
    for (const [name, shape] of Object.entries(table)) {
      const value = valueAt(fields, name);
      if (value === undefined || value === null || fits(value, shape)) continue;
      throw new InvalidInputError(
        'EMQ_INVALID_REQUEST',
        `The event's "${name}" must be ${SHAPE_NAMES[shape]} (or absent); it is ${kindOf(value)}. Send the event as API Gateway or a Function URL sends it.`,
      );
    }
  }
}

function valueAt(fields: Fields, dotted: string): unknown {
  let value: unknown = fields;
  for (const name of dotted.split('.')) value = objectOf(value)?.[name];
  return value;
}

function fits(value: unknown, shape: Shape): boolean {
  switch (shape) {
    case 'string':
    case 'boolean':
    case 'number':
      return typeof value === shape;
    case 'strings':
      return Array.isArray(value) && value.every((item) => typeof item === 'string');
    case 'object':
      return objectOf(value) !== undefined;
    case 'stringMap':
      return (
        objectOf(value) !== undefined &&
        Object.values(value as Fields).every((item) => typeof item === 'string')
      );
    case 'listMap':
      return (
        objectOf(value) !== undefined &&
        Object.values(value as Fields).every(
          (list) =>
            Array.isArray(list) &&
            list.length > 0 &&
            list.every((item) => typeof item === 'string'),
        )
      );
  }
}

function kindOf(value: unknown): string {
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** Payload 2.0 and Function URLs: `rawPath` is the path as sent, still percent-encoded. */
function parseV2(fields: Fields, rawPath: string, method: string, head: boolean): HttpRequest {
  checkShapes(fields, 'v2');
  const domain = objectOf(fields.requestContext)?.domainName;
  const headers = new HeaderSet();
  headers.addAll(objectOf(fields.headers));
  return {
    format: typeof domain === 'string' && domain.includes('.lambda-url.') ? 'url' : 'v2',
    method,
    head,
    segments: split(wholePath(rawPath)).map(decodeSegment),
    mount: [],
    headers: headers.values,
    repeated: headers.repeated,
    body: bodyOf(fields),
  };
}

/**
 * Payload 1.0: `path` is already decoded and leaves out the REST stage, which
 * `requestContext.path` (the path as the caller sent it) keeps in front.
 */
function parseV1(fields: Fields, method: string, head: boolean): HttpRequest {
  checkShapes(fields, 'v1');
  const path = typeof fields.path === 'string' ? wholePath(fields.path) : '/';
  const seen = objectOf(fields.requestContext)?.path;
  const prefix =
    typeof seen === 'string' && seen.length > path.length && seen.endsWith(path)
      ? wholePath(seen.slice(0, seen.length - path.length))
      : '';
  // Payload 1.0 sends every header in both maps: the last value in `headers`, each value in
  // `multiValueHeaders`. Read together, a header sent twice shows however it was spelt.
  const headers = new HeaderSet();
  headers.addLists(objectOf(fields.multiValueHeaders));
  headers.addLast(objectOf(fields.headers));
  return {
    format: 'v1',
    method,
    head,
    segments: split(path),
    // Split like any path; its empty segments (`//host`) name nothing and are dropped.
    mount: prefix
      .split('/')
      .filter((segment) => segment !== '')
      .map(decodeSegment),
    headers: headers.values,
    repeated: headers.repeated,
    body: bodyOf(fields),
  };
}

/**
 * An event's headers, by lower-case name: the last value of each, and the names sent more
 * than once under any spelling (`Idempotency-Key` and `idempotency-key` are one header).
 */
class HeaderSet {
  /** No prototype: a header named `constructor` or `__proto__` is a header like any other. */
  readonly values: Record<string, string> = Object.create(null);
  readonly repeated = new Set<string>();
  /** Lower-case names read from multiValueHeaders, with their last value. */
  private readonly listed = new Map<string, string>();

  /** A map of one value per name (2.0 `headers`, whose values a front joins with commas). */
  addAll(headers: Fields | undefined): void {
    for (const [name, value] of Object.entries(headers ?? {})) {
      const lower = name.toLowerCase();
      if (Object.hasOwn(this.values, lower)) this.repeated.add(lower);
      this.values[lower] = value as string;
    }
  }

  /** 1.0 `multiValueHeaders`: each name's list of values. */
  addLists(headers: Fields | undefined): void {
    for (const [name, values] of Object.entries(headers ?? {})) {
      const list = values as readonly string[];
      const lower = name.toLowerCase();
      if (this.listed.has(lower) || list.length > 1) this.repeated.add(lower);
      const last = list.at(-1) as string;
      this.listed.set(lower, last);
      this.values[lower] = last;
    }
  }

  /** 1.0 `headers`, after addLists: a value the lists do not end with is a second value. */
  addLast(headers: Fields | undefined): void {
    const seen = new Set<string>();
    for (const [name, value] of Object.entries(headers ?? {})) {
      const lower = name.toLowerCase();
      const listed = this.listed.get(lower);
      if (seen.has(lower) || (listed !== undefined && listed !== value)) this.repeated.add(lower);
      seen.add(lower);
      this.values[lower] = value as string;
    }
  }
}

/** A path as given, refused if it holds a lone UTF-16 surrogate (no URL can carry one). */
function wholePath(path: string): string {
  if (hasLoneSurrogate(path)) {
    throw new InvalidInputError(
      'EMQ_INVALID_REQUEST',
      'The request path holds a lone UTF-16 surrogate, which no URL can carry. Percent-encode the path as UTF-8.',
    );
  }
  return path;
}

function split(path: string): string[] {
  return path.split('/').slice(1);
}

function decodeSegment(segment: string): string {
  // Only a percent sign starts an escape: most segments are already what they say.
  if (!segment.includes('%')) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new InvalidInputError(
      'EMQ_INVALID_REQUEST',
      'The request path holds a malformed percent-encoding.',
    );
  }
}

function bodyOf(fields: Fields): Buffer {
  const body = fields.body;
  if (typeof body !== 'string') return Buffer.alloc(0);
  const base64 = fields.isBase64Encoded === true;
  const size = base64 ? decodedLength(body) : Buffer.byteLength(body, 'utf8');
  if (size > MAX_REQUEST_BYTES) {
    throw new InvalidInputError(
      'EMQ_PAYLOAD_TOO_LARGE',
      `The request body is ${size} bytes; a request carries at most ${MAX_REQUEST_BYTES} (Lambda's limit). Send larger payloads in parts, and split batches into smaller ones.`,
    );
  }
  if (!base64) {
    // Encoded as UTF-8 it would become U+FFFD: bytes that were not sent.
    if (hasLoneSurrogate(body)) {
      throw new InvalidInputError(
        'EMQ_INVALID_REQUEST',
        'The event body holds a lone UTF-16 surrogate, which no UTF-8 text can store. Send the body as bytes (isBase64Encoded).',
      );
    }
    return Buffer.from(body, 'utf8');
  }
  const bytes = decodeBase64(body);
  if (bytes === undefined) {
    throw new InvalidInputError(
      'EMQ_INVALID_REQUEST',
      'The event says its body is base64 (isBase64Encoded), but the body is not valid base64 (standard alphabet, padded).',
    );
  }
  return bytes;
}

function objectOf(value: unknown): Fields | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Fields)
    : undefined;
}

function notHttp(): InvalidInputError {
  return new InvalidInputError(
    'EMQ_INVALID_REQUEST',
    'The event is not an API Gateway (payload 1.0 or 2.0) or Function URL request.',
  );
}
