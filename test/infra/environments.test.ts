// Every environment the app synthesizes, across a context matrix (each cache kind × settings),
// is one the functions' own loadConfig accepts, or synthesis refuses, naming the setting.
import { describe, expect, it } from 'vitest';
import { deploymentFromContext } from '../../infra/deployment/context.js';
import { InvalidDeploymentError } from '../../infra/deployment/deployment.js';
import { loadConfig } from '../../src/index.js';
import { MODULE_PATH } from '../support/servers.js';
import { synthStack } from './support/synth.js';
import { environmentOf, projectFunctions } from './support/template.js';

const PEM = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
/** What the deploy fills in for references the template leaves unresolved. */
const STAND_INS: Record<string, string> = {
  EMQ_URL: 'rediss://clustercfg.emq.example:6379',
  EMQ_SECRET_ARN: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:emq-AbCdEf',
  EMQ_DLQ_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/dlq',
  EMQ_TLS_CA: Buffer.from(PEM).toString('base64'),
};

const KINDS: Record<string, Record<string, string>> = {
  elasticache: {},
  'elasticache 8.0 without durability': { engineVersion: '8.0', durability: 'off' },
  'elasticache with IAM': { cacheAuth: 'iam' },
  serverless: { cache: 'serverless' },
  existing: { cache: 'existing', valkeyEndpoint: 'emq.example:6379' },
  selfmanaged: { cache: 'selfmanaged', moduleArtifact: MODULE_PATH },
};

const SETTINGS: Record<string, Record<string, string>> = {
  defaults: {},
  'a longer WAIT': { ackTimeoutMs: '2500' },
  'WAIT as long as a command': { ackReplicas: '1', ackTimeoutMs: '2000' },
  'a longer command budget': { commandTimeoutMs: '5000', ackTimeoutMs: '2500' },
  'a payload cap above a Lambda request': { maxPayloadBytes: '7000000' },
};

type Outcome = { accepted: true } | { accepted: false; problems: readonly string[] };

function synthesize(context: Record<string, string>): Outcome {
  const { deployment, problems } = deploymentFromContext(
    (key) => context[key],
    Object.keys(context),
  );
  expect(problems).toEqual([]);
  try {
    const { template } = synthStack(deployment);
    for (const [id, fn] of Object.entries(projectFunctions(template))) {
      const environment = Object.fromEntries(
        Object.entries(environmentOf(fn)).map(([name, value]) => [
          name,
          typeof value === 'string' ? value : STAND_INS[name],
        ]),
      );
      expect(() => loadConfig({ ...environment, AWS_REGION: 'eu-west-1' }), id).not.toThrow();
    }
    return { accepted: true };
  } catch (error) {
    if (!(error instanceof InvalidDeploymentError)) throw error;
    return { accepted: false, problems: error.problems };
  }
}

describe.each(Object.entries(KINDS))('cache %s', (_, kind) => {
  it.each(Object.entries(SETTINGS))(
    'with %s: every function accepts its environment, or synthesis names the setting',
    (_, chosen) => {
      const outcome = synthesize({ ...kind, ...chosen });
      if (outcome.accepted) return;
      for (const problem of outcome.problems) {
        expect(
          Object.keys(chosen).some((name) => problem.includes(name)),
          problem,
        ).toBe(true);
      }
    },
  );
});

describe('the settings that used to synthesize and then fail at every cold start', () => {
  it.each([
    ['cache=selfmanaged, ackTimeoutMs=2500', KINDS.selfmanaged, { ackTimeoutMs: '2500' }],
    [
      'ackReplicas=1, ackTimeoutMs=2000 on ElastiCache 8.0',
      KINDS['elasticache 8.0 without durability'],
      { ackReplicas: '1', ackTimeoutMs: '2000' },
    ],
    [
      'ackReplicas=1, ackTimeoutMs=2000 on an existing endpoint',
      KINDS.existing,
      { ackReplicas: '1', ackTimeoutMs: '2000' },
    ],
  ])('%s: refused at synthesis, naming the settings', (_, kind, chosen) => {
    expect(synthesize({ ...kind, ...chosen })).toEqual({
      accepted: false,
      problems: [
        'ackTimeoutMs (EMQ_ACK_TIMEOUT_MS) must be less than commandTimeoutMs (EMQ_COMMAND_TIMEOUT_MS) when ackReplicas (EMQ_ACK_REPLICAS) is set: WAIT runs inside the command timeout.',
      ],
    });
  });
});
