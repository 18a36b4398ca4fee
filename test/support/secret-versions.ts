/**
 * Secrets Manager's versions and stages of one secret, in process, answering the SDK client's
 * own commands (DescribeSecret, GetSecretValue, GetRandomPassword, PutSecretValue,
 * UpdateSecretVersionStage) as a rotation function sends them: the rotation tests run the four
 * steps against it, and check with `logsIn` which passwords a node takes. (secrets-manager.ts
 * is the HTTP stand-in a function's process reads.)
 */
import {
  DescribeSecretCommand,
  GetRandomPasswordCommand,
  GetSecretValueCommand,
  PutSecretValueCommand,
  UpdateSecretVersionStageCommand,
} from '@aws-sdk/client-secrets-manager';
import { Valkey } from 'iovalkey';

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
