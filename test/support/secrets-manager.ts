/**
 * A stand-in for AWS Secrets Manager's GetSecretValue, for functions that read their Valkey
 * credentials from a secret: a local HTTP server speaking the AWS JSON 1.1 protocol the SDK
 * uses (POST /, `X-Amz-Target: secretsmanager.GetSecretValue`, a JSON body naming SecretId).
 * A function reaches it through the SDK's own endpoint setting, AWS_ENDPOINT_URL_SECRETS_MANAGER
 * (`environment` gives that and dummy AWS credentials). A test changes the secret's value as a
 * rotation would (`put`) and counts the reads.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { LOOPBACK } from './ports.js';

export interface SecretsManagerStandIn {
  /** The secret's ARN, for EMQ_SECRET_ARN. */
  readonly arn: string;
  /** The endpoint and dummy AWS settings a function's environment needs to read the secret. */
  readonly environment: Readonly<Record<string, string>>;
  /** Replaces the secret's value (a new version, as PutSecretValue makes). */
  put(value: unknown): void;
  /** GetSecretValue calls answered so far. */
  reads(): number;
  close(): Promise<void>;
}

const REGION = 'us-east-1';
const TARGET = 'secretsmanager.GetSecretValue';

/** Serves one secret, whose value is `value` as JSON, until closed. */
export async function startSecretsManager(
  value: unknown,
  name = `emq-test-${randomUUID().slice(0, 8)}`,
): Promise<SecretsManagerStandIn> {
  const arn = `arn:aws:secretsmanager:${REGION}:123456789012:secret:${name}-AbCdEf`;
  let secret = { string: JSON.stringify(value), version: randomUUID() };
  let reads = 0;
  const server = createServer((request, response) => {
    void answer(request, response);
  });
  const answer = async (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    let body: { SecretId?: unknown } = {};
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
    } catch {}
    const reply = (status: number, json: unknown) => {
      response.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
      response.end(JSON.stringify(json));
    };
    if (request.method !== 'POST' || request.headers['x-amz-target'] !== TARGET) {
      reply(400, { __type: 'UnknownOperationException', message: 'only GetSecretValue' });
      return;
    }
    if (body.SecretId !== arn && body.SecretId !== name) {
      reply(400, {
        __type: 'ResourceNotFoundException',
        message: "Secrets Manager can't find the specified secret.",
      });
      return;
    }
    reads += 1;
    reply(200, {
      ARN: arn,
      Name: name,
      SecretString: secret.string,
      VersionId: secret.version,
      VersionStages: ['AWSCURRENT'],
      CreatedDate: Math.floor(Date.now() / 1000),
    });
  };
  await new Promise<void>((resolve) => server.listen(0, LOOPBACK, resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    arn,
    environment: {
      AWS_ENDPOINT_URL_SECRETS_MANAGER: `http://${LOOPBACK}:${port}`,
      AWS_REGION: REGION,
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
    },
    put: (next) => {
      secret = { string: JSON.stringify(next), version: randomUUID() };
    },
    reads: () => reads,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
