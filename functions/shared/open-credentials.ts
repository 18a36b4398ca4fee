/**
 * What a one-shot connection (the CLI, the deploy-time installer) authenticates with: an IAM
 * token where EMQ_IAM_AUTH is on, the Secrets Manager secret's user and password, or nothing.
 * One-shot: nothing is renewed, the connection closes long before its token would matter.
 */
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { Config } from '../../src/settings/config.js';
import { IamSession } from './iam-session.js';
import { readCredentials } from './secrets.js';

export interface OpenCredentials {
  readonly username?: string | undefined;
  readonly password?: string | undefined;
}

export async function openCredentials(
  config: Config,
  secrets?: Pick<SecretsManagerClient, 'send'>,
): Promise<OpenCredentials> {
  if (config.iam !== undefined) {
    return { username: config.iam.userId, password: await new IamSession(config.iam).token() };
  }
  return config.secretArn === undefined ? {} : readCredentials(config.secretArn, secrets);
}
