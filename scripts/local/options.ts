/** The local stack's command line: `npm start -- [--port N] [--data-dir DIR] [--cluster] ...`. */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';

export interface StackOptions {
  /** The HTTP port on 127.0.0.1. Default 3000. */
  readonly httpPort: number;
  /** Where Valkey keeps its data and logs. Default `.emq-local` in the project folder. */
  readonly dataDir: string;
  /** Three primaries instead of one server. Default false. */
  readonly cluster: boolean;
  /**
   * Valkey's port (a cluster's first port; the others follow it). Default: 6379 (cluster
   * 7000-7002) when free, else free ports the OS picks.
   */
  readonly valkeyPort: number | undefined;
  /** Print the function's log lines as Lambda writes them (JSON, with EMF metrics). Default false. */
  readonly rawLogs: boolean;
  /** Also start a local SQS server, queues and the poller that invokes the SQS function. Default false. */
  readonly sqs: boolean;
  /** The local SQS server's port. Default: a free port. */
  readonly sqsPort: number | undefined;
  /**
   * The HTTP API's stage: `$default` serves the routes at the root, as the stack deploys them;
   * a named one (`prod`) serves them under `/prod` only, as API Gateway does. Default `$default`.
   */
  readonly stage: string;
}

export const USAGE = `Usage: npm start -- [options]

Starts Valkey 8 with the EchoMQ module, installs the fence, and serves the HTTP function on
127.0.0.1. Ctrl-C stops everything it started.

Options:
  --port <n>          HTTP port (default 3000)
  --data-dir <dir>    data and logs folder (default .emq-local in the project)
  --cluster           three primaries instead of one standalone server
  --valkey-port <n>   Valkey port; a cluster's first port (default 6379, or 7000 with
                      --cluster, when free; else free ports)
  --raw-logs          print the function's log lines as Lambda writes them (JSON + metrics)
  --sqs               also start a local SQS server (fauxqs) with a source queue and a DLQ,
                      polled as Lambda's event source mapping does, into the SQS function
  --sqs-port <n>      the local SQS server's port (default: a free port)
  --stage <name>      serve the API under a named stage, /<name>/queues/..., as API Gateway
                      serves a stage other than $default (default: at the root)
  -h, --help          this text

Each function runs in a process of its own with your environment: EMQ_WIRE and the other
EMQ_* settings apply; EMQ_URL, EMQ_CLUSTER and the credentials are the stack's own.`;

export class UsageError extends Error {}

/** Parses the arguments, or returns 'help'. Throws UsageError with a message for the operator. */
export function parseOptions(args: readonly string[], projectDir: string): StackOptions | 'help' {
  let values: ReturnType<typeof parse>['values'];
  try {
    ({ values } = parse(args));
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  if (values.help === true) return 'help';
  return {
    httpPort: port('--port', values.port) ?? 3000,
    dataDir:
      values['data-dir'] === undefined
        ? resolve(projectDir, '.emq-local')
        : resolve(values['data-dir']),
    cluster: values.cluster === true,
    valkeyPort: port('--valkey-port', values['valkey-port']),
    rawLogs: values['raw-logs'] === true,
    sqs: values.sqs === true,
    sqsPort: port('--sqs-port', values['sqs-port']),
    stage: stage(values.stage),
  };
}

function parse(args: readonly string[]) {
  return parseArgs({
    args: [...args],
    strict: true,
    allowPositionals: false,
    options: {
      port: { type: 'string' },
      'data-dir': { type: 'string' },
      cluster: { type: 'boolean' },
      'valkey-port': { type: 'string' },
      'raw-logs': { type: 'boolean' },
      sqs: { type: 'boolean' },
      'sqs-port': { type: 'string' },
      stage: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}

/** A stage name as API Gateway takes one: 1 to 128 of A-Z a-z 0-9 _ -, or `$default`. */
function stage(value: string | undefined): string {
  if (value === undefined || value === '$default') return '$default';
  if (!/^[A-Za-z0-9_-]{1,128}$/.test(value)) {
    throw new UsageError('--stage expects a stage name: 1 to 128 of A-Z a-z 0-9 _ -.');
  }
  return value;
}

function port(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!/^\d+$/.test(value) || parsed < 1 || parsed > 65_535) {
    throw new UsageError(`${name} expects a port number from 1 to 65535.`);
  }
  return parsed;
}
