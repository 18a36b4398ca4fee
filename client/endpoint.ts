/**
 * The endpoint and every request URL made from it (docs/client.md, "The endpoint"). An endpoint is
 * any base the service is deployed under: an HTTP API's `$default` stage (no path), a named stage
 * (`/prod`), a REST API stage, a custom domain's base path, a Function URL; each with or
 * without a trailing `/`. A request's path is the endpoint's path without its trailing `/`s,
 * then the route's segments, each percent-encoded: never `//`, which API Gateway does not
 * route (and SigV4 would sign as another path).
 */
import { invalid } from './errors.js';

export interface Endpoint {
  /** The endpoint as given: its origin is every request's, its host names the signing scope. */
  readonly url: URL;
  /** Its path without trailing `/`s: empty at the root, else `/prod`, `/v1/emq`. */
  readonly path: string;
}

/** The endpoint, checked; throws EMQ_INVALID_CONFIG for anything but an http(s) base URL. */
export function endpointOf(endpoint: string | URL): Endpoint {
  const given = String(endpoint);
  let url: URL | undefined;
  try {
    url = new URL(given);
  } catch {
    url = undefined;
  }
  const shown = JSON.stringify(given.slice(0, 200));
  if (url === undefined || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
    throw invalid(
      'EMQ_INVALID_CONFIG',
      `The endpoint ${shown} is not an http(s) URL: give the API's URL (with its stage, if it has a named one), the custom domain with its base path, or the Function URL.`,
    );
  }
  // A query or fragment would be dropped from, or signed into, every request: neither is meant.
  if (url.search !== '' || url.hash !== '') {
    throw invalid(
      'EMQ_INVALID_CONFIG',
      `The endpoint ${shown} has a query or fragment: give the base URL alone, as the stack's output or the API's url shows it.`,
    );
  }
  return { url, path: url.pathname.replace(/\/+$/, '') };
}

/** The URL of `segments` under the endpoint: each segment percent-encoded, joined by one `/`. */
export function requestUrl(endpoint: Endpoint, segments: readonly string[]): URL {
  const url = new URL(endpoint.url);
  url.pathname = `${endpoint.path}/${segments.map(encodeURIComponent).join('/')}`;
  return url;
}
