/**
 * The local stack, in order: Valkey (standalone or cluster, with the module), the fence, the
 * functions, each in a process of its own as Lambda runs it (cli/runtime/function-process.ts),
 * and the HTTP front (and SQS loop) that invoke them. Stopping goes the other way and always
 * ends every process it started. The functions' environments, routes and event source are
 * the synthesized stack's (synthesis.ts), with the user's settings and the local servers'
 * address: this process's own environment is only read.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SQSBatchResponse } from 'aws-lambda';
import { parse } from 'yaml';
import { type Child, Children } from '../../cli/runtime/children.js';
import { type FunctionProcess, startFunction } from '../../cli/runtime/function-process.js';
import { loadConfig } from '../../src/index.js';
import { mintId } from '../../src/keyspace/ids.js';
import { banner } from './banner.js';
import { installLocalFence } from './fence.js';
import { type LocalHttp, serveHttp } from './http-server.js';
import { ensureValkey } from './install.js';
import { readableLine } from './log-lines.js';
import type { StackOptions } from './options.js';
import { LOOPBACK } from './ports.js';
import { type ProjectFiles, projectFiles } from './project.js';
import { LOCAL_SQS, type LocalSqs, startLocalSqs } from './sqs-loop.js';
import { claim, release, writeState } from './state.js';
import { synthesizedSettings } from './synthesis.js';
import type { EventSourceSettings } from './template.js';
import { startValkey, versionOf } from './valkey.js';

/** An environment, as process.env is one. */
export type Environment = Readonly<Record<string, string | undefined>>;

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

/** The API's URL the stack serves: its port, and its stage when it is a named one. */
function endpointOf(options: StackOptions): string {
  const stage = options.stage === '$default' ? '' : `/${options.stage}`;
  return `http://${LOOPBACK}:${options.httpPort}${stage}`;
}

export class LocalStack {
  readonly #children = new Children();
  readonly #functions: FunctionProcess[] = [];
  #http: LocalHttp | undefined;
  #sqs: LocalSqs | undefined;
  #claimed = false;
  #stopped: Promise<void> | undefined;

  constructor(
    readonly options: StackOptions,
    readonly projectDir: string,
    readonly print: (text: string) => void,
    /** The user's environment (the start script's): the functions' is built from it. */
    readonly env: Environment,
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
    const user = userSettings(this.env);
    // What the stack deploys: its routes, its functions' environments, its event source.
    const deployed = await synthesizedSettings(projectDir, this.print);
    if (options.sqs && deployed.sqs === undefined) {
      throw new StackError('The stack deploys no SQS event source, so --sqs has nothing to run.');
    }
    // Settings are checked before anything starts: a bad EMQ_WIRE fails here, not at a request.
    const { wire } = loadConfig({ ...deployed.httpEnv, ...user });
    if (!existsSync(files.module)) {
      throw new StackError(
        `The EchoMQ module is not built (${files.module}): run \`npm run build:module\`.`,
      );
    }
    for (const name of options.sqs ? (['http', 'sqs'] as const) : (['http'] as const)) {
      if (!existsSync(files.functions[name])) {
        throw new StackError(
          `The ${name} function is not built (${files.functions[name]}): run \`npm run build\`.`,
        );
      }
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
    // Each function's environment is the one the stack gives it (template.ts leaves out the
    // target's variables), the user's own settings on top, and the local servers' address.
    const local = (deployedEnv: Environment) => ({
      ...deployedEnv,
      ...user,
      EMQ_URL: valkey.urls.join(','),
      EMQ_CLUSTER: String(valkey.cluster),
      // Locally every record line is worth seeing (with the id to `emq get`); Lambda's default is INFO.
      AWS_LAMBDA_LOG_LEVEL: user.AWS_LAMBDA_LOG_LEVEL ?? 'DEBUG',
    });
    const env = local(deployed.httpEnv);
    // The functions start beside the fence install: neither opens a connection before a
    // request, and the HTTP front, which sends the first, starts after all three.
    const [fence, http] = await Promise.all([
      installLocalFence(env),
      this.#startFunction('http', env, files),
      deployed.sqs === undefined || !options.sqs
        ? undefined
        : this.#startSqs(
            options.sqsPort ?? 0,
            local(deployed.sqs.env),
            deployed.sqs.eventSource,
            files,
          ),
    ]);
    this.#http = await serveHttp(
      (event, invocation) => http.invoke(event, invocation),
      options.httpPort,
      deployed.routes,
      { [OPENAPI_ROUTE]: openapiJson(projectDir, endpointOf(options)) },
      options.stage,
    );

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
        family: fence.family,
        dataDir: options.dataDir,
        projectDir,
        exampleId: mintId(),
        sqs: this.#sqs,
      }),
    );
  }

  /** The SQS server, its queues and the poller; the SQS function dead-letters to its DLQ. */
  async #startSqs(
    port: number,
    env: Environment,
    eventSource: EventSourceSettings,
    files: ProjectFiles,
  ): Promise<void> {
    let sqsFunction: FunctionProcess | undefined;
    this.#sqs = await startLocalSqs(
      port,
      async (event) => {
        // Nothing is sent to the new queues before the banner; a batch that came sooner
        // would fail here and come back after its visibility timeout, as a failed invocation's does.
        if (sqsFunction === undefined) throw new StackError('The SQS function is not started yet.');
        return (await sqsFunction.invoke(event, { timeoutMs: 30_000 })) as SQSBatchResponse;
      },
      (message) => this.print(message),
      eventSource,
    );
    // Its DLQ and where SQS is (AWS_ENDPOINT_URL_SQS is the SDK's own setting); the local
    // server takes any credentials.
    sqsFunction = await this.#startFunction(
      'sqs',
      {
        ...env,
        EMQ_DLQ_URL: this.#sqs.dlqUrl,
        AWS_ENDPOINT_URL_SQS: this.#sqs.endpoint,
        AWS_REGION: env.AWS_REGION ?? LOCAL_SQS.region,
        AWS_ACCESS_KEY_ID: env.AWS_ACCESS_KEY_ID ?? 'local',
        AWS_SECRET_ACCESS_KEY: env.AWS_SECRET_ACCESS_KEY ?? 'local',
      },
      files,
    );
  }

  /** One function's container; its log lines are printed readable, or raw with --raw-logs. */
  async #startFunction(
    name: 'http' | 'sqs',
    env: Environment,
    files: ProjectFiles,
  ): Promise<FunctionProcess> {
    const started = await startFunction(this.#children, {
      name,
      bundle: files.functions[name],
      env,
      functionName: `emq-${name}`,
      log: (line) => {
        const shown = this.options.rawLogs ? line : readableLine(line);
        if (shown !== undefined) this.print(shown);
      },
    });
    this.#functions.push(started);
    return started;
  }

  /** Stops the HTTP server, the SQS loop, the functions and every child. Safe to call twice. */
  stop(): Promise<void> {
    this.#stopped ??= (async () => {
      await this.#http?.close();
      // The poller stops asking for batches as its function ends: a batch under way is cut
      // off, and its records would come back, as when Lambda ends a container.
      await Promise.all([this.#sqs?.close(), ...this.#functions.map((each) => each.stop())]);
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

/** The user's environment without the settings this stack decides. */
function userSettings(env: Environment): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).filter(
      (entry): entry is [string, string] =>
        entry[1] !== undefined && !OWNED_SETTINGS.includes(entry[0]),
    ),
  );
}
