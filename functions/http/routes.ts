/**
 * The routes of SPEC §8. A route is matched at the end of the path, so the function serves
 * the same under a named stage (`/prod/queues/...`), a custom-domain base path or a
 * `{proxy+}` resource; whatever precedes the route is kept for `Location`.
 */

export type RouteName =
  | 'POST /queues/{queue}/jobs'
  | 'POST /queues/{queue}/jobs/batch'
  | 'PUT /queues/{queue}/jobs/{id}'
  | 'GET /queues/{queue}/jobs/{id}';

/** The last segment of the batch route. It is never a job id (ids start with JOB). */
export const BATCH_SEGMENT = 'batch';

export type RouteMatch =
  | {
      readonly kind: 'enqueue' | 'batch';
      readonly route: RouteName;
      readonly queue: string;
      /** The path in front of `/queues/...`, e.g. `/prod`; empty at the root. */
      readonly base: string;
    }
  | {
      readonly kind: 'put' | 'get';
      readonly route: RouteName;
      readonly queue: string;
      readonly id: string;
      readonly base: string;
      /** HEAD: the GET's status and headers, no body. */
      readonly head?: boolean;
    }
  | { readonly kind: 'notFound' }
  | { readonly kind: 'methodNotAllowed'; readonly allow: readonly string[] };

/** Matches a method and decoded path segments to a route; `mount` is put in front of `base`. */
export function matchRoute(method: string, segments: readonly string[], mount: string): RouteMatch {
  const collection = tail(segments, 3);
  const item = tail(segments, 4);
  const base = (prefix: readonly string[]): string =>
    mount + prefix.map((segment) => `/${encodeURIComponent(segment)}`).join('');

  // The method picks the reading first: a path can fit both shapes (`/queues/queues/jobs/jobs`).
  if (method === 'POST' && collection !== undefined) {
    const [queue] = collection.vars;
    return {
      kind: 'enqueue',
      route: 'POST /queues/{queue}/jobs',
      queue,
      base: base(collection.prefix),
    };
  }
  if (item !== undefined && item.vars[1] === BATCH_SEGMENT) {
    if (method !== 'POST') return { kind: 'methodNotAllowed', allow: ['POST'] };
    return {
      kind: 'batch',
      route: 'POST /queues/{queue}/jobs/batch',
      queue: item.vars[0],
      base: base(item.prefix),
    };
  }
  if ((method === 'PUT' || method === 'GET' || method === 'HEAD') && item !== undefined) {
    const [queue, id] = item.vars;
    if (method === 'PUT') {
      return {
        kind: 'put',
        route: 'PUT /queues/{queue}/jobs/{id}',
        queue,
        id,
        base: base(item.prefix),
      };
    }
    return {
      kind: 'get',
      route: 'GET /queues/{queue}/jobs/{id}',
      queue,
      id,
      base: base(item.prefix),
      head: method === 'HEAD',
    };
  }
  if (item !== undefined) return { kind: 'methodNotAllowed', allow: ['GET', 'HEAD', 'PUT'] };
  if (collection !== undefined) return { kind: 'methodNotAllowed', allow: ['POST'] };
  return { kind: 'notFound' };
}

interface Tail {
  readonly prefix: readonly string[];
  /** The queue, then the id for an item path. */
  readonly vars: readonly [string, string];
}

/** `.../queues/<q>/jobs` (length 3) or `.../queues/<q>/jobs/<id>` (length 4) at the path's end. */
function tail(segments: readonly string[], length: 3 | 4): Tail | undefined {
  if (segments.length < length) return undefined;
  const at = segments.length - length;
  const [literal, queue = '', jobs, id = ''] = segments.slice(at);
  if (literal !== 'queues' || jobs !== 'jobs' || queue === '') return undefined;
  if (length === 4 && id === '') return undefined;
  return { prefix: segments.slice(0, at), vars: [queue, id] };
}
