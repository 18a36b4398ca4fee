/**
 * Reads the three HTTP event shapes that reach this function (API Gateway HTTP API payload
 * 2.0, REST API / payload 1.0, Lambda Function URLs) into one request. The event is read
 * defensively: a direct invoke can send anything, and a malformed event must answer 400,
 * never crash the container.
 */
import { InvalidInputError } from '../../src/outcomes/outcomes.js';
import { decodeBase64, decodedLength } from '../shared/base64.js';

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
   * What the caller's URL holds before the routed path and the event leaves out of it (the
   * REST stage, e.g. `/prod`); prepended to `Location`. Empty for payload 2.0, whose raw
   * path already holds the stage.
   */
  readonly mount: string;
  /** Header names in lower case; a repeated header keeps its last value (see `repeated`). */
  readonly headers: Readonly<Record<string, string>>;
  /**
   * Lower-case names of headers the caller sent more than once, where the event can tell
   * (payload 1.0's multiValueHeaders). Payload 2.0 and Function URLs join repeated values with
   * a comma, so there a comma inside a value is all that shows.
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
  const fields = record(event);
  // Payload 1.0's httpMethod when it is a string, else 2.0's requestContext.http.method (a
  // non-string httpMethod must not hide a 2.0 HEAD).
  const v1 = typeof fields?.httpMethod === 'string';
  const sent = v1 ? fields?.httpMethod : record(record(fields?.requestContext)?.http)?.method;
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
    // The path's encoding or the body: what the caller sent is refused, with its HEAD kept.
    if (error instanceof InvalidInputError) return { head, refusal: error };
    throw error;
  }
}

/** Payload 2.0 and Function URLs: `rawPath` is the path as sent, still percent-encoded. */
function parseV2(fields: Fields, rawPath: string, method: string, head: boolean): HttpRequest {
  const domain = record(fields.requestContext)?.domainName;
  return {
    format: typeof domain === 'string' && domain.includes('.lambda-url.') ? 'url' : 'v2',
    method,
    head,
    segments: split(rawPath).map(decodeSegment),
    mount: '',
    headers: lowerCased(record(fields.headers)),
    repeated: new Set(),
    body: bodyOf(fields),
  };
}

/**
 * Payload 1.0: `path` is already decoded and leaves out the REST stage, which
 * `requestContext.path` (the path as the caller sent it) keeps in front.
 */
function parseV1(fields: Fields, method: string, head: boolean): HttpRequest {
  const path = typeof fields.path === 'string' ? fields.path : '/';
  const seen = record(fields.requestContext)?.path;
  const mount =
    typeof seen === 'string' && seen.length > path.length && seen.endsWith(path)
      ? seen.slice(0, seen.length - path.length)
      : '';
  return {
    format: 'v1',
    method,
    head,
    segments: split(path),
    mount,
    headers: {
      ...lowerCased(lastValues(record(fields.multiValueHeaders))),
      ...lowerCased(record(fields.headers)),
    },
    repeated: repeatedIn(record(fields.multiValueHeaders)),
    body: bodyOf(fields),
  };
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

function lowerCased(headers: Fields | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (typeof value === 'string') out[name.toLowerCase()] = value;
  }
  return out;
}

function repeatedIn(headers: Fields | undefined): Set<string> {
  const names = new Set<string>();
  for (const [name, values] of Object.entries(headers ?? {})) {
    if (Array.isArray(values) && values.length > 1) names.add(name.toLowerCase());
  }
  return names;
}

function lastValues(headers: Fields | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, values] of Object.entries(headers ?? {})) {
    const last: unknown = Array.isArray(values) ? values.at(-1) : undefined;
    if (typeof last === 'string') out[name] = last;
  }
  return out;
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
  if (!base64) return Buffer.from(body, 'utf8');
  const bytes = decodeBase64(body);
  if (bytes === undefined) {
    throw new InvalidInputError(
      'EMQ_INVALID_REQUEST',
      'The event says its body is base64 (isBase64Encoded), but the body is not valid base64 (standard alphabet, padded).',
    );
  }
  return bytes;
}

function record(value: unknown): Fields | undefined {
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
