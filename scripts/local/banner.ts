/** What the stack prints once it serves: where things are and ready-to-paste commands. */
import { join, relative } from 'node:path';
import type { LocalSqs } from './sqs-loop.js';
import type { RunningValkey } from './valkey.js';

export interface BannerFacts {
  readonly http: string;
  readonly valkey: RunningValkey;
  readonly version: string;
  readonly wire: string;
  readonly family: string;
  readonly dataDir: string;
  readonly projectDir: string;
  /** A job id for the PUT example, so the lines paste as they are. */
  readonly exampleId: string;
  /** The local SQS loop, with `--sqs`. Default: none. */
  readonly sqs?: LocalSqs | undefined;
}

const PORTS_CHOSEN = {
  asked: 'as asked',
  default: 'the default',
  free: 'the default was taken, so a free one',
  kept: "kept from the folder's cluster",
} as const;

export function banner(facts: BannerFacts): string {
  const { http, valkey, exampleId } = facts;
  const shape = valkey.cluster ? `cluster of ${valkey.nodes.length} primaries` : 'standalone';
  const ports = valkey.nodes.map((node) => node.port).join(', ');
  const jobs = `${http}/queues/demo/jobs`;
  const cliUrl = valkey.urls.join(',');
  // npm exec finds the project's own bin from inside the project; elsewhere, name the bundle.
  const cli =
    process.cwd() === facts.projectDir
      ? 'npx emq'
      : `node ${relative(process.cwd(), join(facts.projectDir, 'dist', 'cli', 'emq', 'index.mjs'))}`;
  const cluster = valkey.cluster ? ' --cluster' : '';
  return `
EchoMQ local stack is up.
  HTTP     ${http}  (the HTTP function, in its own process, behind an API Gateway v2 adapter)
  OpenAPI  ${http}/openapi.json
  Valkey   ${facts.version} ${shape} on 127.0.0.1 port ${ports} (${PORTS_CHOSEN[valkey.portsChosen]})
           module loaded, family ${facts.family}, wire identity ${facts.wire} installed
  Data     ${facts.dataDir}  (append-only files and valkey.log)

Try it:
  curl -i -X POST ${jobs} -H 'Idempotency-Key: demo-1' --data-binary 'hello'
  curl -i -X POST ${jobs} -H 'Idempotency-Key: demo-1' --data-binary 'hello'
  curl -i -X POST ${jobs}/batch --data '{"jobs":[{"payload":"a"},{"payload":"b","idempotencyKey":"demo-2"}]}'
  curl -i -X PUT ${jobs}/${exampleId} --data-binary 'my own id'   # mint fresh ids with: ${cli} id
  curl -i ${jobs}/${exampleId}
  ${cli} pending demo --url ${cliUrl}${cluster}
${facts.sqs === undefined ? '' : sqsLines(facts.sqs, cli, `--url ${cliUrl}${cluster}`)}
Ctrl-C stops everything.
`;
}

function sqsLines(sqs: LocalSqs, cli: string, at: string): string {
  const { batchSize, batchingWindowSeconds, reportBatchItemFailures } = sqs.eventSource;
  const window = batchingWindowSeconds > 0 ? ` within ${batchingWindowSeconds} s` : '';
  const failures = reportBatchItemFailures
    ? 'ReportBatchItemFailures'
    : 'no ReportBatchItemFailures';
  return `
SQS (fauxqs at ${sqs.endpoint}, polled as the stack's event source mapping: batches of up to
${batchSize}${window}, ${failures}, visibility 5 s, to the DLQ after 5 receives):
  Queue    ${sqs.queueUrl}
  DLQ      ${sqs.dlqUrl}
  ${cli} send ${sqs.queueUrl} 'hello from sqs' --queue demo
  AWS_ACCESS_KEY_ID=local AWS_SECRET_ACCESS_KEY=local aws --endpoint-url ${sqs.endpoint} --region us-east-1 sqs send-message --queue-url ${sqs.queueUrl} --message-body 'hello from sqs' --message-attributes '{"emq-queue":{"DataType":"String","StringValue":"demo"}}'
  (the log prints "sqs record queue=demo id=JOB..."; then: ${cli} get demo <id> ${at})
  ${cli} send ${sqs.queueUrl} 'to the dlq' --queue 'not a queue'
  ${cli} dlq ${sqs.dlqUrl}   # each dead letter's reason, without taking it
`;
}
