/**
 * The local stack, in order: Valkey (standalone or cluster, with the module), the fence, the
 * HTTP function. Stopping goes the other way and always ends every process it started.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SQSBatchResponse } from 'aws-lambda';
import { parse } from 'yaml';
import { localContext } from '../../cli/lambda-context.js';
import { handler } from '../../functions/http/handler.js';
import { resetContainer } from '../../functions/shared/connection.js';
import { setLogSink } from '../../functions/shared/log.js';
import { handler as sqsHandler } from '../../functions/sqs/handler.js';
import { loadConfig, mintJobId } from '../../src/index.js';
import { banner } from './banner.js';
import { type Child, Children } from './children.js';
import { installLocalFence } from './fence.js';
import { type LocalHttp, serveHttp } from './http-server.js';
import { ensureValkey } from './install.js';
import { readableLine } from './log-lines.js';
import type { StackOptions } from './options.js';
import { LOOPBACK } from './ports.js';
import { projectFiles } from './project.js';
import { type LocalSqs, startLocalSqs } from './sqs-loop.js';
import { claim, release, writeState } from './state.js';
import { startValkey, versionOf } from './valkey.js';

/** The settings this stack decides: the servers it starts have no ACL and no secret. */
const OWNED_SETTINGS = ['EMQ_URL', 'EMQ_CLUSTER', 'EMQ_SECRET_ARN', 'EMQ_USERNAME', 'EMQ_PASSWORD'];

/** Where the stack serves the HTTP face's OpenAPI document. */
export const OPENAPI_ROUTE = '/openapi.json';

/**
 * The document the project ships (YAML, for review), served as JSON for tools, with this
 * stack's own address as its local server: the file says port 3000, which a stack started
 * with --port does not listen on, and a tool would send its requests there.
 */
export function openapiJson(projectDir: string, origin: string): string {
  const document: unknown = parse(
    readFileSync(join(projectDir, 'openapi', 'openapi.yaml'), 'utf8'),
  );
  if (typeof document !== 'object' || document === null) {
    throw new StackError('openapi/openapi.yaml is not an OpenAPI document.');
  }
  const listed = 'servers' in document && Array.isArray(document.servers) ? document.servers : [];
  const others = listed.filter((server: unknown) => !isLocalServer(server));
  const local = { url: origin, description: 'This local stack (`npm start`)' };
  return JSON.stringify({ ...document, servers: [local, ...others] });
}

/** The file's entry for the local stack (http://127.0.0.1:<port>). */
function isLocalServer(server: unknown): boolean {
  if (typeof server !== 'object' || server === null || !('url' in server)) return false;
  return typeof server.url === 'string' && server.url.startsWith(`http://${LOOPBACK}:`);
}

export class StackError extends Error {}

export class LocalStack {
  readonly #children = new Children();
  #http: LocalHttp | undefined;
  #sqs: LocalSqs | undefined;
  #claimed = false;
  #stopped: Promise<void> | undefined;

  constructor(
    readonly options: StackOptions,
    readonly projectDir: string,
    readonly print: (text: string) => void,
  ) {}

  /** True once the stack has claimed its folder: from then on there is something to stop. */
  get started(): boolean {
    return this.#claimed;
  }

  /** Called when a process of the stack dies on its own. */
  onChildDied(listener: (child: Child, how: string) => void): void {
    this.#children.onUnexpectedExit(listener);
  }

  async start(): Promise<void> {
    const { options, projectDir } = this;
    const files = projectFiles(projectDir);
    // Settings are checked before anything starts: a bad EMQ_WIRE fails here, not at a request.
    for (const name of OWNED_SETTINGS) delete process.env[name];
    const { wire } = loadConfig(process.env);
    if (!existsSync(files.module)) {
      throw new StackError(
        `The EchoMQ module is not built (${files.module}): run \`npm run build:module\`.`,
      );
    }
    if (!(await ensureValkey(files.installValkey))) {
      throw new StackError(
        'Valkey 8 is needed: install it as shown above, then run npm start again.',
      );
    }
    await claim(options.dataDir);
    this.#claimed = true;

    const valkey = await startValkey(this.#children, {
      dataDir: options.dataDir,
      cluster: options.cluster,
      port: options.valkeyPort,
      modulePath: files.module,
      wire,
    });
    // The HTTP function reads its settings from the environment on its first request, as in Lambda.
    process.env.EMQ_URL = valkey.urls.join(',');
    process.env.EMQ_CLUSTER = String(valkey.cluster);
    const fence = await installLocalFence(process.env);
    // Locally every record line is worth seeing (with the id to `emq get`); Lambda's default is INFO.
    process.env.AWS_LAMBDA_LOG_LEVEL ??= 'DEBUG';
    if (options.sqs) await this.#startSqs(options.sqsPort ?? 0);
    if (!options.rawLogs) {
      setLogSink((line) => {
        const readable = readableLine(line);
        if (readable !== undefined) this.print(readable);
      });
    }
    this.#http = await serveHttp(handler, options.httpPort, {
      [OPENAPI_ROUTE]: openapiJson(projectDir, `http://${LOOPBACK}:${options.httpPort}`),
    });

    await writeState(options.dataDir, {
      pid: process.pid,
      http: this.#http.url,
      valkey: { urls: valkey.urls, cluster: valkey.cluster },
      children: this.#children.list().map(({ name, pid }) => ({ name, pid })),
    });
    this.print(
      banner({
        http: this.#http.url,
        valkey,
        version: await versionOf(valkey.nodes[0]?.port ?? 0),
        wire: fence.wire,
        executor: fence.executor,
        dataDir: options.dataDir,
        projectDir,
        exampleId: mintJobId(),
        sqs: this.#sqs,
      }),
    );
  }

  /** The SQS server, its queues and the poller; the SQS function dead-letters to its DLQ. */
  async #startSqs(port: number): Promise<void> {
    this.#sqs = await startLocalSqs(
      port,
      async (event) =>
        (await sqsHandler(
          event,
          localContext({ functionName: 'emq-sqs', timeoutMs: 30_000 }),
        )) as SQSBatchResponse,
      (message) => this.print(message),
    );
    // The SQS function reads these on its first batch, as in Lambda (AWS_ENDPOINT_URL_SQS is
    // the SDK's own setting). The local server takes any credentials.
    process.env.EMQ_DLQ_URL = this.#sqs.dlqUrl;
    process.env.AWS_ENDPOINT_URL_SQS = this.#sqs.endpoint;
    process.env.AWS_REGION ??= 'us-east-1';
    process.env.AWS_ACCESS_KEY_ID ??= 'local';
    process.env.AWS_SECRET_ACCESS_KEY ??= 'local';
  }

  /** Stops the HTTP server, the function's connection and every child. Safe to call twice. */
  stop(): Promise<void> {
    this.#stopped ??= (async () => {
      await this.#http?.close();
      await this.#sqs?.close();
      await resetContainer();
      await this.#children.stopAll();
      if (this.#claimed) await release(this.options.dataDir);
    })();
    return this.#stopped;
  }

  /** Kills every child now (a second Ctrl-C while stopping). */
  kill(): void {
    this.#children.killAll();
  }
}
