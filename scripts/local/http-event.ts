/**
 * The adapter between Node's HTTP server and the Lambda handler: a request becomes an API
 * Gateway HTTP API (payload 2.0) event, and the handler's result becomes the response, so the
 * handler runs here exactly as it runs behind API Gateway.
 */
import { isUtf8 } from 'node:buffer';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2 } from 'aws-lambda';

/** Content types API Gateway passes as text; any other body arrives base64-encoded. */
const TEXT_TYPES =
  /^(text\/|application\/(json|xml|javascript|x-www-form-urlencoded)|application\/[\w.+-]+\+(json|xml))/i;

/** Reads the whole request body. */
export async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * The payload 2.0 event API Gateway would send for this request, on `stage` (a named stage
 * keeps its name in front of rawPath, as HTTP APIs send it). Default: `$default`.
 */
export function toEvent(
  request: IncomingMessage,
  body: Buffer,
  requestId: string,
  stage = '$default',
  now: Date = new Date(),
): APIGatewayProxyEventV2 {
  // The request target as sent: still percent-encoded, as API Gateway's rawPath is.
  const target = request.url ?? '/';
  const query = target.indexOf('?');
  const rawPath = query === -1 ? target : target.slice(0, query);
  const rawQueryString = query === -1 ? '' : target.slice(query + 1);
  const headers = headersOf(request);
  const method = (request.method ?? 'GET').toUpperCase();
  const binary = !TEXT_TYPES.test(headers['content-type'] ?? '') || !isUtf8(body);
  const queryStringParameters = parametersOf(rawQueryString);
  const host = headers.host ?? 'localhost';
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath,
    rawQueryString,
    ...(headers.cookie === undefined ? {} : { cookies: headers.cookie.split(/;\s*/) }),
    headers,
    ...(queryStringParameters === undefined ? {} : { queryStringParameters }),
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      domainName: host,
      domainPrefix: host.split('.')[0] ?? host,
      http: {
        method,
        path: rawPath,
        protocol: `HTTP/${request.httpVersion}`,
        sourceIp: request.socket.remoteAddress ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId,
      routeKey: '$default',
      stage,
      time: now.toISOString(),
      timeEpoch: now.getTime(),
    },
    ...(body.length === 0 ? {} : { body: body.toString(binary ? 'base64' : 'utf8') }),
    isBase64Encoded: body.length > 0 && binary,
  };
}

/** Writes the handler's result as API Gateway would: a bare string is a 200 JSON body. */
export function writeResult(response: ServerResponse, result: APIGatewayProxyResultV2): void {
  if (typeof result === 'string' || result === undefined || result === null) {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(typeof result === 'string' ? result : '');
    return;
  }
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(result.headers ?? {})) {
    headers[name.toLowerCase()] = String(value);
  }
  if (result.cookies !== undefined && result.cookies.length > 0)
    headers['set-cookie'] = result.cookies;
  const body = Buffer.from(result.body ?? '', result.isBase64Encoded === true ? 'base64' : 'utf8');
  headers['content-length'] = String(body.length);
  response.writeHead(result.statusCode ?? 200, headers);
  response.end(body);
}

/** Header names lower-cased; a repeated header joined with commas, as API Gateway does. */
function headersOf(request: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  const raw = request.rawHeaders;
  for (let index = 0; index + 1 < raw.length; index += 2) {
    const name = (raw[index] ?? '').toLowerCase();
    const value = raw[index + 1] ?? '';
    headers[name] = headers[name] === undefined ? value : `${headers[name]},${value}`;
  }
  return headers;
}

function parametersOf(rawQueryString: string): Record<string, string> | undefined {
  if (rawQueryString === '') return undefined;
  const parameters: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(rawQueryString)) {
    parameters[name] = parameters[name] === undefined ? value : `${parameters[name]},${value}`;
  }
  return parameters;
}
