/**
 * Secrets Manager's versions and stages of one secret, in process, answering the SDK client's
 * own commands (DescribeSecret, GetSecretValue, GetRandomPassword, PutSecretValue,
 * UpdateSecretVersionStage) as a rotation function sends them: the rotation tests run the four
 * steps against it, and check with `logsIn` which passwords a node takes. (secrets-manager.ts
 * is the HTTP stand-in a function's process reads.)
 */

import { createServer } from 'node:http';
import {
  DescribeSecretCommand,
  GetRandomPasswordCommand,
  GetSecretValueCommand,
  PutSecretValueCommand,
  UpdateSecretVersionStageCommand,
} from '@aws-sdk/client-secrets-manager';
import { Valkey } from 'iovalkey';
import type { RotationStep } from '../../functions/rotate/rotation.js';
import { LOOPBACK } from './ports.js';

/** A rotated secret's ARN, the password its user starts with, and the four steps in order. */
export const SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:emq-app-AbCdEf';
export const FIRST_PASSWORD = 'first-password-0123456789abcdef';
export const STEPS: readonly RotationStep[] = [
  'createSecret',
  'setSecret',
  'testSecret',
  'finishSecret',
];

export class SecretVersions {
  readonly versions = new Map<string, { value: string | undefined; stages: string[] }>();
  private minted = 0;

  constructor(initial: string) {
    this.versions.set('v0', { value: initial, stages: ['AWSCURRENT'] });
  }

  /** What RotateSecret does before it invokes the function: a version staged AWSPENDING, with no value yet. */
  startRotation(token: string): void {
    if (this.versions.has(token)) return;
    this.versions.set(token, { value: undefined, stages: ['AWSPENDING'] });
  }

  async send(command: object): Promise<Record<string, unknown>> {
    if (command instanceof DescribeSecretCommand) {
      return {
        RotationEnabled: true,
        VersionIdsToStages: Object.fromEntries(
          [...this.versions].map(([id, version]) => [id, [...version.stages]]),
        ),
      };
    }
    if (command instanceof GetSecretValueCommand) {
      const { VersionId, VersionStage } = command.input;
      const found = [...this.versions].find(
        ([id, version]) =>
          (VersionId === undefined || id === VersionId) &&
          (VersionStage === undefined || version.stages.includes(VersionStage)),
      );
      if (found?.[1].value === undefined) throw notFound();
      return { VersionId: found[0], SecretString: found[1].value };
    }
    if (command instanceof GetRandomPasswordCommand) {
      this.minted += 1;
      return {
        RandomPassword: `minted${this.minted}`.padEnd(command.input.PasswordLength ?? 32, 'x'),
      };
    }
    if (command instanceof PutSecretValueCommand) {
      const { ClientRequestToken, SecretString, VersionStages } = command.input;
      if (ClientRequestToken === undefined || SecretString === undefined)
        throw new Error('bad put');
      for (const version of this.versions.values()) {
        version.stages = version.stages.filter((stage) => !VersionStages?.includes(stage));
      }
      this.versions.set(ClientRequestToken, {
        value: SecretString,
        stages: [...(VersionStages ?? [])],
      });
      return {};
    }
    if (command instanceof UpdateSecretVersionStageCommand) {
      const { VersionStage, MoveToVersionId, RemoveFromVersionId } = command.input;
      if (VersionStage !== 'AWSCURRENT' || MoveToVersionId === undefined)
        throw new Error('bad move');
      const old =
        RemoveFromVersionId === undefined ? undefined : this.versions.get(RemoveFromVersionId);
      if (old !== undefined) old.stages = ['AWSPREVIOUS'];
      for (const version of this.versions.values()) {
        if (version !== old)
          version.stages = version.stages.filter((stage) => stage !== 'AWSPREVIOUS');
      }
      const moved = this.versions.get(MoveToVersionId);
      if (moved === undefined) throw notFound();
      moved.stages = ['AWSCURRENT'];
      return {};
    }
    throw new Error(`The stand-in does not serve ${command.constructor.name}.`);
  }

  current(): Record<string, unknown> {
    const found = [...this.versions.values()].find((version) =>
      version.stages.includes('AWSCURRENT'),
    );
    return JSON.parse(found?.value ?? '{}') as Record<string, unknown>;
  }
}

function notFound(): Error {
  const error = new Error("Secrets Manager can't find the specified secret value.");
  error.name = 'ResourceNotFoundException';
  return error;
}

/**
 * Whether `password` logs `username` in on the node at host:port, on a connection of its own
 * (what a rotation must keep or drop), with no command beyond AUTH and PING.
 */
export async function logsIn(
  node: { readonly host: string; readonly port: number },
  username: string,
  password: string,
): Promise<boolean> {
  const client = new Valkey({
    host: node.host,
    port: node.port,
    username,
    password,
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    // The user may run PING only: no INFO of a ready check.
    enableReadyCheck: false,
  });
  // A refused AUTH is the answer this asks for, not an error to report.
  client.on('error', () => {});
  try {
    await client.connect();
    return (await client.call('PING')) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

/** The commands a rotation sends, by the operation name of their `X-Amz-Target`. */
const OPERATIONS: Readonly<Record<string, new (input: never) => object>> = {
  DescribeSecret: DescribeSecretCommand,
  GetSecretValue: GetSecretValueCommand,
  GetRandomPassword: GetRandomPasswordCommand,
  PutSecretValue: PutSecretValueCommand,
  UpdateSecretVersionStage: UpdateSecretVersionStageCommand,
};

/**
 * Serves `secrets` (by ARN) over the AWS JSON 1.1 protocol the SDK speaks, for a function
 * process or bundle that reaches Secrets Manager through AWS_ENDPOINT_URL_SECRETS_MANAGER
 * (`environment`). GetRandomPassword, which names no secret, is answered by the first.
 */
export async function serveSecretVersions(
  secrets: Readonly<Record<string, SecretVersions>>,
): Promise<{ environment: Record<string, string>; close(): Promise<void> }> {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const reply = (status: number, json: unknown) => {
        response.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
        response.end(JSON.stringify(json));
      };
      const operation = String(request.headers['x-amz-target'] ?? '').replace(
        'secretsmanager.',
        '',
      );
      const Command = OPERATIONS[operation];
      const input = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as {
        SecretId?: string;
      };
      const versions =
        input.SecretId === undefined ? Object.values(secrets)[0] : secrets[input.SecretId];
      if (Command === undefined || versions === undefined) {
        reply(400, { __type: 'ResourceNotFoundException', message: 'not served here' });
        return;
      }
      versions.send(new Command(input as never)).then(
        (output) => reply(200, output),
        (error: Error) => reply(400, { __type: error.name, message: error.message }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, LOOPBACK, resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    environment: {
      AWS_ENDPOINT_URL_SECRETS_MANAGER: `http://${LOOPBACK}:${port}`,
      AWS_REGION: 'eu-west-1',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
