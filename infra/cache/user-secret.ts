/**
 * A cache user's generated credentials, `{"username","password"}` in Secrets Manager, as every
 * kind the construct creates makes them. The functions' and installer's users rotate by the
 * construct's rotation function (constructs/credential-rotation.ts); where a user's password
 * changes another way (the self-managed nodes' admin), `rotation` says how, and is the reason cdk-nag's SMG4 is acknowledged.
 */
import { Validations } from 'aws-cdk-lib';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';

export interface UserSecretProps {
  /** The user name the secret holds beside its password. */
  readonly username: string;
  /** Whose user it is, after `echomq-lambda: ` in the secret's description. */
  readonly description: string;
  /**
   * How this kind's passwords change where no rotation schedule does it.
   * @default a schedule does
   */
  readonly rotation?: string;
}

export function userSecret(
  scope: Construct,
  id: string,
  props: UserSecretProps,
): secretsmanager.Secret {
  const secret = new secretsmanager.Secret(scope, id, {
    description: `echomq-lambda: ${props.description}`,
    generateSecretString: {
      secretStringTemplate: JSON.stringify({ username: props.username }),
      generateStringKey: 'password',
      passwordLength: 32,
      excludePunctuation: true,
    },
  });
  if (props.rotation !== undefined) {
    Validations.of(secret).acknowledge({ id: 'AwsSolutions-SMG4', reason: props.rotation });
  }
  return secret;
}
