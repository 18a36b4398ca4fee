// A refused login writes nothing (docs/security.md, "Credentials"): on servers whose `default`
// user is on with every right (as an existing or self-hosted cache may be), the functions'
// user under the deployed rules, logged in with a wrong password, switched off, or unknown.
// The built HTTP function (every route) and the built SQS function, standalone and cluster,
// answer the refusal (500 EMQ_CONFIG; every record a batch item failure), the CLI exits with
// it, and the servers ran none of the functions' commands: every primary's dataset digest is
// unchanged, and no command the functions send was counted (INFO commandstats).
import { randomBytes } from 'node:crypto';
import type { SQSBatchResponse } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Children } from '../../cli/runtime/children.js';
import { type FunctionProcess, startFunction } from '../../cli/runtime/function-process.js';
import { mintId } from '../../src/keyspace/ids.js';
import { sqsEvent, sqsRecord } from '../fixtures/sqs/records.js';
import { freshBundle } from '../support/bundles.js';
import { assertBuilt, emq } from '../support/cli.js';
import { digestOf } from '../support/digest.js';
import { installFenceEverywhere } from '../support/fence-ready.js';
import { type RunningHttpFace, startHttpFace, valkeyEnvironment } from '../support/functions.js';
import {
  type ClusterHandle,
  randomQueue,
  type ServerHandle,
  startCluster,
  startStandalone,
} from '../support/servers.js';
import { aclArgs, aclDir, FUNCTIONS_USER, KINDS, PASSWORD } from './acl-setup.js';

/** The function family's kind: no module, FCALL of the library (ElastiCache node-based). */
const KIND = KINDS[0] as (typeof KINDS)[number];
/** A user with the functions' rules, switched off. */
const OFF_USER = 'emq-app-off';

const LOGINS = [
  ['a wrong password', FUNCTIONS_USER, `wrong-${randomBytes(6).toString('hex')}`],
  ['a user that is off', OFF_USER, PASSWORD],
  ['an unknown user', 'emq-nobody', PASSWORD],
] as const;

/**
 * Commands the functions (or the CLI) send once logged in, by INFO commandstats' names: none
 * may be counted after a refused login. The harness's own calls (DEBUG DIGEST, INFO, CLIENT)
 * are not among them.
 */
const FUNCTION_COMMANDS =
  /^(fcall|fcall_ro|function\|.*|script\|.*|evalsha|eval|emq\..*|memory\|.*|command\|.*|cluster\|slots|cluster\|shards|wait|select|hget|hset|zadd|set|get|exists)$/;

let dir: { dir: string; remove: () => Promise<void> };
let standalone: ServerHandle;
let cluster: ClusterHandle;

beforeAll(async () => {
  assertBuilt();
  dir = await aclDir();
  const args = await aclArgs(dir.dir, KIND);
  [standalone, cluster] = await Promise.all([
    startStandalone({ extraArgs: args }),
    startCluster({ extraArgs: args }),
  ]);
  // The library, installed as `default`: under the bug the functions wrote through it.
  await Promise.all([installFenceEverywhere(standalone), installFenceEverywhere(cluster)]);
  const rules = KIND.rules().functions.split(/\s+/).filter(Boolean);
  for (const node of [standalone, ...cluster.nodes]) {
    const admin = await node.client();
    try {
      // Off last: the deployed rules begin with `on`.
      await admin.call('ACL', 'SETUSER', OFF_USER, `>${PASSWORD}`, ...rules, 'off');
    } finally {
      admin.disconnect();
    }
  }
}, 180_000);

afterAll(async () => {
  await Promise.all([standalone?.stop(), cluster?.stop()]);
  await dir?.remove();
});

/** Each primary's counts of the commands the functions send. */
async function functionCommandCounts(nodes: readonly ServerHandle[]): Promise<string[]> {
  const counts: string[] = [];
  for (const node of nodes) {
    const client = await node.client();
    try {
      const info = String(await client.call('INFO', 'commandstats'));
      for (const match of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
        const [, name, calls] = match;
        if (FUNCTION_COMMANDS.test(name ?? '')) counts.push(`${node.url} ${name} ${calls}`);
      }
    } finally {
      client.disconnect();
    }
  }
  return counts.sort();
}

/** What the servers hold and have run: equal before and after means nothing ran or changed. */
async function footprint(target: ServerHandle | ClusterHandle): Promise<unknown> {
  const nodes = target.kind === 'cluster' ? await target.primaries() : [target];
  const digest = target.kind === 'cluster' ? [...(await digestOf(target))] : await digestOf(target);
  return { digest, commands: await functionCommandCounts(nodes) };
}

function environment(
  target: ServerHandle | ClusterHandle,
  username: string,
  password: string,
): Record<string, string> {
  return {
    ...valkeyEnvironment(target),
    EMQ_USERNAME: username,
    EMQ_PASSWORD: password,
    EMQ_CONNECT_TIMEOUT_MS: '2000',
  };
}

interface Answer {
  readonly route: string;
  readonly status: number;
  readonly code: unknown;
}

/** The problem's code (none for a HEAD answer, which has no body). */
function codeOf(text: string): unknown {
  return text === '' ? undefined : (JSON.parse(text) as { code?: unknown }).code;
}

/** Every route of the HTTP face, once. */
async function everyRoute(face: RunningHttpFace, queue: string): Promise<Answer[]> {
  const id = mintId();
  const jobs = `${face.url}/queues/${queue}/jobs`;
  const requests: [string, string, RequestInit][] = [
    ['POST', jobs, { method: 'POST', body: 'keyless' }],
    ['POST keyed', jobs, { method: 'POST', body: 'keyed', headers: { 'idempotency-key': 'k1' } }],
    ['PUT', `${jobs}/${id}`, { method: 'PUT', body: 'by id' }],
    [
      'POST batch',
      `${jobs}/batch`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jobs: [{ payload: 'a' }, { payload: 'b', idempotencyKey: 'k2' }] }),
      },
    ],
    ['GET', `${jobs}/${id}`, { method: 'GET' }],
    ['HEAD', `${jobs}/${id}`, { method: 'HEAD' }],
  ];
  const answers: Answer[] = [];
  for (const [route, url, init] of requests) {
    const response = await fetch(url, init);
    const text = await response.text();
    answers.push({ route, status: response.status, code: codeOf(text) });
  }
  return answers;
}

describe.each(['standalone', 'cluster'] as const)(
  'on a %s server whose default user is on',
  (topology) => {
    const target = () => (topology === 'cluster' ? cluster : standalone);

    describe.each(LOGINS)('the functions logging in with %s', (_, username, password) => {
      it('answers every HTTP route 500 EMQ_CONFIG and writes nothing', async () => {
        const before = await footprint(target());
        const face = await startHttpFace(target(), {
          env: environment(target(), username, password),
        });
        let answers: Answer[];
        try {
          answers = await everyRoute(face, randomQueue('refused-http'));
        } finally {
          await face.stop();
        }
        expect(answers).toEqual(
          answers.map(({ route }) => ({
            route,
            // A batch refused whole for one server-side cause answers that cause.
            status: 500,
            code: route === 'HEAD' ? undefined : 'EMQ_CONFIG',
          })),
        );
        expect(face.log.join('\n')).not.toContain(password);
        expect(await footprint(target())).toEqual(before);
      });

      it('fails every SQS record (retried, none admitted) and writes nothing', async () => {
        const before = await footprint(target());
        const children = new Children();
        const log: string[] = [];
        let sqs: FunctionProcess | undefined;
        let response: SQSBatchResponse;
        const records = [1, 2, 3].map((n) =>
          sqsRecord({ body: `record ${n}`, queue: randomQueue('refused-sqs') }),
        );
        try {
          sqs = await startFunction(children, {
            name: 'sqs',
            bundle: await freshBundle('functions/sqs', [
              'src',
              'functions/sqs',
              'functions/shared',
            ]),
            env: { PATH: process.env.PATH, ...environment(target(), username, password) },
            log: (line) => log.push(line),
          });
          response = (await sqs.invoke(sqsEvent(records))) as SQSBatchResponse;
        } finally {
          await sqs?.stop();
          await children.stopAll();
        }
        expect(response.batchItemFailures).toEqual(
          records.map(({ messageId }) => ({ itemIdentifier: messageId })),
        );
        expect(log.join('\n')).not.toContain(password);
        expect(await footprint(target())).toEqual(before);
      });

      it('makes `emq enqueue` exit with the refusal and write nothing', async () => {
        const before = await footprint(target());
        const env = environment(target(), username, password);
        const run = await emq(['enqueue', randomQueue('refused-cli'), 'x', '--json'], { env });
        expect(run.code).toBe(1);
        expect(JSON.parse(run.stdout)).toMatchObject({
          error: { code: 'EMQ_CONFIG', retryable: false },
        });
        expect(run.stdout + run.stderr).not.toContain(password);
        expect(await footprint(target())).toEqual(before);
      });
    });
  },
);
