/** The local HTTP front: every request goes through the adapter to the real Lambda handler. */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2 } from 'aws-lambda';
import type { InvokeOptions } from '../../cli/runtime/function-process.js';
import { readBody, toEvent, writeResult } from './http-event.js';
import { LOOPBACK } from './ports.js';
import { type DeployedRoute, routed } from './template.js';

/** The handler as the local server calls it: an HTTP API event in, a result out. */
export type HttpHandler = (
  event: APIGatewayProxyEventV2,
  invocation: InvokeOptions,
) => Promise<unknown>;

/** API Gateway's own limit on an HTTP API integration: 30 s. */
const TIMEOUT_MS = 30_000;

/** How long a close waits for the requests under way to be answered before cutting them off. */
const CLOSE_GRACE_MS = 5_000;

export interface LocalHttp {
  /** The API's URL, as its stage gives it: with the stage's name when it is a named one. */
  readonly url: string;
  close(): Promise<void>;
}

/** What API Gateway's HTTP API answers a request no route matches. */
const NOT_FOUND = '{"message":"Not Found"}';

/**
 * Listens on 127.0.0.1:`port`. Rejects when the port is taken. `routes` are the ones the
 * stack deploys: any other request is answered 404 as API Gateway answers it, and never
 * reaches the function. `documents` are JSON texts served by GET at their exact path (the
 * OpenAPI document at `/openapi.json`, under the stage), before routing. Default: none. `stage` serves the
 * routes under a named stage (`prod`: `/prod/queues/...`) as API Gateway does, and nothing
 * outside it; default `$default`, at the root.
 */
export async function serveHttp(
  handler: HttpHandler,
  port: number,
  routes: readonly DeployedRoute[],
  documents: Readonly<Record<string, string>> = {},
  stage = '$default',
): Promise<LocalHttp> {
  // The requests under way, each until its answer has been written out (or its socket lost).
  const underWay = new Set<Promise<void>>();
  const server = createServer((request, response) => {
    const path = routedPath((request.url ?? '/').split('?')[0] as string, stage);
    const document = request.method === 'GET' && path !== undefined ? documents[path] : undefined;
    if (document !== undefined) {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(document);
      return;
    }
    if (path === undefined || !routed(routes, request.method ?? 'GET', path)) {
      request.resume();
      response.writeHead(404, { 'content-type': 'application/json' });
      response.end(NOT_FOUND);
      return;
    }
    const requestId = randomUUID();
    const answered = new Promise<void>((resolve) => response.once('close', () => resolve()));
    underWay.add(answered);
    void answered.then(() => underWay.delete(answered));
    readBody(request)
      .then((body) =>
        handler(toEvent(request, body, requestId, stage), { requestId, timeoutMs: TIMEOUT_MS }),
      )
      .then((result) => writeResult(response, result as APIGatewayProxyResultV2))
      .catch(() => {
        // The function answers every failure itself: no answer (it died under the request,
        // threw, timed out) is a function error, which API Gateway answers with a 502.
        if (!response.headersSent) {
          response.writeHead(502, { 'content-type': 'application/json' });
        }
        response.end('{"message":"Internal Server Error"}');
      });
  });
  await listen(server, port);
  return {
    url: `http://${LOOPBACK}:${port}${stage === '$default' ? '' : `/${stage}`}`,
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      // A request under way gets its answer first: one whose function died under it answers
      // 502 here, as the stack stops because of that death. One still waiting is cut off.
      const grace = sleep(CLOSE_GRACE_MS, undefined, { ref: false });
      await Promise.race([Promise.all(underWay), grace]);
      server.closeAllConnections();
      await closed;
    },
  };
}

/**
 * The path API Gateway routes: the request's, without the stage's name in front of it when
 * the stage is a named one; undefined when the request is not under that stage.
 */
function routedPath(path: string, stage: string): string | undefined {
  if (stage === '$default') return path;
  const prefix = `/${stage}`;
  if (path === prefix) return '';
  return path.startsWith(`${prefix}/`) ? path.slice(prefix.length) : undefined;
}

function listen(server: Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new Error(
          error.code === 'EADDRINUSE'
            ? `HTTP port ${port} is taken on ${LOOPBACK}; choose another with --port.`
            : `Cannot listen on ${LOOPBACK}:${port} (${error.code ?? error.message}).`,
        ),
      ),
    );
    server.listen({ port, host: LOOPBACK, exclusive: true }, () => resolve());
  });
}
