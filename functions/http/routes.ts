/**
 * The routes of README.md "The HTTP face", read from one table: the operations of the OpenAPI
 * document (openapi/operations.ts, generated from openapi/openapi.yaml). Matching, the route names
 * in logs, the 405's Allow and the 404's text all come from it; what serves each operation is
 * one row of operations.ts. A route is matched at the end of the path, so the function serves
 * the same under a named stage (`/prod/queues/...`), a custom-domain base path or a
 * `{proxy+}` resource; whatever precedes the route is kept for `Location`.
 */
import { OPERATIONS, type Operation } from '../../openapi/operations.js';

/** A path template's variables: `{ queue, id }` for `/queues/{queue}/jobs/{id}`. */
export type PathParams<Path extends string> = Path extends `${string}{${infer Name}}${infer Rest}`
  ? { readonly [Key in Name]: string } & PathParams<Rest>
  : unknown;

/** A row of the table: an operation of the document. */
export interface RouteRow {
  readonly method: string;
  readonly path: string;
  readonly operationId: string;
}

export type RouteMatch<Row extends RouteRow = Operation> =
  | {
      readonly kind: 'operation';
      readonly operation: Row;
      /** Each variable of the operation's path, as sent (decoded), never empty. */
      readonly params: Readonly<Record<string, string>>;
      /** The path in front of `/queues/...`, e.g. `/prod`; empty at the root. */
      readonly base: string;
    }
  | { readonly kind: 'notFound' }
  | { readonly kind: 'methodNotAllowed'; readonly allow: readonly string[] };

export interface RouteTable<Row extends RouteRow> {
  /**
   * Matches a method and decoded path segments to an operation; the decoded segments of
   * `mount` are put in front of `base`. A path can fit several templates: of those of one length, the one with more
   * literal segments wins (`.../jobs/batch` is the batch, never the job `batch`); between
   * lengths the method picks (`/queues/queues/jobs/jobs` is a POST's collection and a GET's
   * job), and a method none takes is refused with the Allow of the longest.
   */
  match(method: string, segments: readonly string[], mount?: readonly string[]): RouteMatch<Row>;
  /** The 404's detail: every route, each path once with its methods, in the table's order. */
  readonly list: string;
}

/** One segment of a path template: a literal, or a variable's name. */
type Part = { readonly literal: string } | { readonly variable: string };

/** One path of the table with its operations. */
interface PathRoutes<Row> {
  readonly path: string;
  readonly parts: readonly Part[];
  readonly literals: number;
  readonly byMethod: ReadonlyMap<string, Row>;
}

/** The name of an operation's route in logs: `POST /queues/{queue}/jobs`. */
export function routeName(operation: RouteRow): string {
  return `${operation.method} ${operation.path}`;
}

export function routeTable<Row extends RouteRow>(rows: readonly Row[]): RouteTable<Row> {
  const paths = pathsOf(rows);
  const list = `No such route. Routes: ${paths
    .map((path) => `${listed([...path.byMethod.keys()])} ${path.path}`)
    .join(', ')}.`;
  const match = (
    method: string,
    segments: readonly string[],
    mount: readonly string[] = [],
  ): RouteMatch<Row> => {
    const fits = paths.flatMap((path) => {
      const fit = fitOf(path, segments);
      return fit === undefined ? [] : [{ path, ...fit }];
    });
    const readings = fits
      .filter(
        (fit) =>
          !fits.some(
            (other) =>
              other.path.parts.length === fit.path.parts.length &&
              other.path.literals > fit.path.literals,
          ),
      )
      .sort((a, b) => b.path.parts.length - a.path.parts.length);
    const [longest] = readings;
    if (longest === undefined) return { kind: 'notFound' };
    for (const reading of readings) {
      const operation = reading.path.byMethod.get(method);
      if (operation === undefined) continue;
      return {
        kind: 'operation',
        operation,
        params: reading.params,
        base: pathOf([...mount, ...reading.prefix]),
      };
    }
    return { kind: 'methodNotAllowed', allow: [...longest.path.byMethod.keys()].sort() };
  };
  return { match, list };
}

/**
 * The path of decoded segments, each percent-encoded, for `Location`: whatever the caller
 * put in a segment (CR LF, `:`, a backslash) stays inside it, and empty segments are dropped, so
 * the path never starts `//` (which a client reads as another host).
 */
function pathOf(segments: readonly string[]): string {
  let path = '';
  for (const segment of segments) if (segment !== '') path += `/${encodeURIComponent(segment)}`;
  return path;
}

/** The routes of this function: the document's operations. */
const ROUTES = routeTable(OPERATIONS);

export const matchRoute = ROUTES.match;
export const ROUTE_LIST = ROUTES.list;

/** The path's variables and what precedes it, when `segments` end with it. */
function fitOf(
  path: PathRoutes<unknown>,
  segments: readonly string[],
): { readonly prefix: readonly string[]; readonly params: Record<string, string> } | undefined {
  const at = segments.length - path.parts.length;
  if (at < 0) return undefined;
  const params: Record<string, string> = {};
  for (const [index, part] of path.parts.entries()) {
    const segment = segments[at + index] ?? '';
    if ('literal' in part) {
      if (segment !== part.literal) return undefined;
    } else {
      // An empty variable (`/queues//jobs`) names nothing: no route.
      if (segment === '') return undefined;
      params[part.variable] = segment;
    }
  }
  return { prefix: segments.slice(0, at), params };
}

function pathsOf<Row extends RouteRow>(rows: readonly Row[]): PathRoutes<Row>[] {
  const paths = new Map<string, Map<string, Row>>();
  for (const operation of rows) {
    const byMethod = paths.get(operation.path) ?? new Map<string, Row>();
    byMethod.set(operation.method, operation);
    paths.set(operation.path, byMethod);
  }
  return [...paths].map(([path, byMethod]) => {
    const parts: Part[] = path
      .slice(1)
      .split('/')
      .map((segment) =>
        segment.startsWith('{') && segment.endsWith('}')
          ? { variable: segment.slice(1, -1) }
          : { literal: segment },
      );
    const literals = parts.filter((part) => 'literal' in part).length;
    return { path, parts, literals, byMethod };
  });
}

/** `PUT, GET and HEAD`. */
function listed(words: readonly string[]): string {
  return words.length < 2 ? words.join('') : `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`;
}
