/**
 * Secrets Manager, stood in at the SDK's boundary, for the deployed settings (deployed.ts):
 * GetSecretValue of a deployed secret answers `{"username","password"}` of its user on the
 * local target. Two ways in, both through the product's own code:
 * - `client`, for what takes a client (the fence installer's `secrets` option), as
 *   test/infra/elasticache-like.test.ts does;
 * - `listen()`, a loopback endpoint speaking the service's JSON protocol, reached by the real
 *   SDK client the functions build themselves, through AWS_ENDPOINT_URL_SECRETS_MANAGER (in
 *   this process's environment, or a child's).
 * Every secret asked for is kept in `asked`, so a test can check who read what.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { LOOPBACK } from '../ports.js';
import { type Tracked, track, untrack } from '../registry.js';
import { type Deployed, standInArn } from './deployed.js';
import type { Target } from './target.js';

export type SecretsClient = Pick<SecretsManagerClient, 'send'>;

export class SecretsStandIn implements Tracked {
  readonly asked: string[] = [];
  readonly #values = new Map<string, string>();
  #server: Server | undefined;

  /** Answers for every deployed secret whose user the target has, and for `extra` ARNs. */
  constructor(
    settings: Deployed,
    target: Target,
    extra: Readonly<Record<string, { readonly username: string; readonly password: string }>> = {},
  ) {
    for (const [secret, username] of settings.secretUsers) {
      const password = target.passwords.get(username);
      if (password !== undefined)
        this.#values.set(standInArn(secret), JSON.stringify({ username, password }));
    }
    for (const [arn, value] of Object.entries(extra)) this.#values.set(arn, JSON.stringify(value));
  }

  /** A client whose send() answers GetSecretValue (other commands are not stood in). */
  get client(): SecretsClient {
    const send = async (command: GetSecretValueCommand) => {
      const id = String(command.input.SecretId);
      this.asked.push(id);
      const value = this.#values.get(id);
      if (value === undefined)
        throw Object.assign(new Error(`Secrets Manager can't find ${id}`), {
          name: 'ResourceNotFoundException',
        });
      return { ARN: id, SecretString: value };
    };
    return { send } as unknown as SecretsClient;
  }

  /** Starts the loopback endpoint; returns the variables that point the AWS SDK at it. */
  async listen(): Promise<Record<string, string>> {
    const server = createServer((request, response) => void this.#answer(request, response));
    await new Promise<void>((resolve) => server.listen(0, LOOPBACK, resolve));
    this.#server = server;
    track(this);
    const address = server.address();
    if (address === null || typeof address === 'string')
      throw new Error('the stand-in has no port');
    return {
      AWS_ENDPOINT_URL_SECRETS_MANAGER: `http://${LOOPBACK}:${address.port}`,
      AWS_REGION: 'eu-west-1',
      AWS_ACCESS_KEY_ID: 'AKIDSTANDIN',
      AWS_SECRET_ACCESS_KEY: 'stand-in',
    };
  }

  async #answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const reply = (status: number, body: unknown): void => {
      response.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
      response.end(JSON.stringify(body));
    };
    if (request.headers['x-amz-target'] !== 'secretsmanager.GetSecretValue') {
      reply(400, { __type: 'InvalidRequestException', message: 'only GetSecretValue is stood in' });
      return;
    }
    const { SecretId } = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as {
      SecretId?: string;
    };
    const id = String(SecretId);
    this.asked.push(id);
    const value = this.#values.get(id);
    if (value === undefined) {
      reply(400, {
        __type: 'ResourceNotFoundException',
        message: `Secrets Manager can't find ${id}`,
      });
      return;
    }
    reply(200, {
      ARN: id,
      Name: id,
      SecretString: value,
      VersionId: 'stand-in',
      VersionStages: ['AWSCURRENT'],
    });
  }

  async stop(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    if (server === undefined) return;
    untrack(this);
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  killNow(): void {
    this.#server?.closeAllConnections();
    this.#server?.close();
  }
}
