import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/index.js';
import { configure, DEFAULTS, FAMILY_CHOICES } from '../../src/settings/config.js';

describe('loadConfig', () => {
  it('applies the documented defaults to an empty environment: DEFAULTS, the one set', () => {
    expect(loadConfig({})).toEqual({
      urls: ['redis://127.0.0.1:6379'],
      cluster: false,
      family: 'auto',
      wire: '1',
      defaultQueue: 'default',
      dlqUrl: undefined,
      maxPayloadBytes: 262_144,
      dedupeTtlMs: 3_600_000,
      commandTimeoutMs: 2_000,
      connectTimeoutMs: 3_000,
      username: undefined,
      password: undefined,
      secretArn: undefined,
      tlsCa: undefined,
      ackReplicas: 0,
      ackTimeoutMs: 1_000,
      callerIdMaxAgeMs: 86_400_000,
      iam: undefined,
      deployment: 'local',
    });
    expect(loadConfig({})).toEqual(DEFAULTS);
    expect(configure({ wire: '2', cluster: undefined })).toEqual({ ...DEFAULTS, wire: '2' });
  });

  it('accepts every family the help names, and only those', () => {
    for (const family of FAMILY_CHOICES)
      expect(loadConfig({ EMQ_EXECUTOR: family }).family).toBe(family);
    expect(FAMILY_CHOICES).toEqual(['auto', 'native', 'function', 'script']);
  });

  it.each([
    ['EMQ_DEDUPE_TTL_MS', '1000000000000000', 'at most 999999999999999'],
    ['EMQ_MAX_PAYLOAD_BYTES', String(6 * 1024 * 1024 + 1), 'at most 6291456'],
    ['EMQ_COMMAND_TIMEOUT_MS', '2147483648', 'at most 2147483647'],
    ['EMQ_ACK_REPLICAS', '1001', 'at most 1000'],
  ])('refuses %s=%s, which the server (or a timer) could not take', (name, value, expected) => {
    expect(() => loadConfig({ [name]: value })).toThrow(
      new RegExp(`^${name} is invalid: expected a whole number of ${expected}`),
    );
  });

  it('refuses an acknowledgement wait that the command timeout would cut off', () => {
    expect(() =>
      loadConfig({
        EMQ_ACK_REPLICAS: '1',
        EMQ_ACK_TIMEOUT_MS: '2000',
        EMQ_COMMAND_TIMEOUT_MS: '2000',
      }),
    ).toThrow(/^EMQ_ACK_TIMEOUT_MS must be less than EMQ_COMMAND_TIMEOUT_MS/);
    expect(loadConfig({ EMQ_ACK_REPLICAS: '1', EMQ_ACK_TIMEOUT_MS: '1999' }).ackTimeoutMs).toBe(
      1999,
    );
  });

  it('reads every variable', () => {
    const config = loadConfig({
      EMQ_URL: 'rediss://a:6379, rediss://b:6379',
      EMQ_CLUSTER: 'true',
      EMQ_EXECUTOR: 'function',
      EMQ_WIRE: '2',
      EMQ_DEFAULT_QUEUE: 'orders',
      EMQ_DLQ_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/dlq',
      EMQ_MAX_PAYLOAD_BYTES: '1024',
      EMQ_DEDUPE_TTL_MS: '60000',
      EMQ_COMMAND_TIMEOUT_MS: '500',
      EMQ_CONNECT_TIMEOUT_MS: '800',
      EMQ_USERNAME: 'emq',
      EMQ_PASSWORD: 'secret',
      EMQ_SECRET_ARN: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:emq',
    });
    expect(config).toMatchObject({
      urls: ['rediss://a:6379', 'rediss://b:6379'],
      cluster: true,
      family: 'function',
      wire: '2',
      defaultQueue: 'orders',
      maxPayloadBytes: 1024,
      dedupeTtlMs: 60_000,
      commandTimeoutMs: 500,
      connectTimeoutMs: 800,
      username: 'emq',
      password: 'secret',
    });
  });

  it.each([
    ['EMQ_URL', 'http://cache:6379'],
    ['EMQ_URL', 'not a url'],
    ['EMQ_CLUSTER', 'yes'],
    ['EMQ_EXECUTOR', 'fast'],
    ['EMQ_WIRE', 'has space'],
    ['EMQ_DEFAULT_QUEUE', 'a:b'],
    ['EMQ_DLQ_URL', 'dlq'],
    ['EMQ_MAX_PAYLOAD_BYTES', '-1'],
    ['EMQ_DEDUPE_TTL_MS', '10'],
    ['EMQ_COMMAND_TIMEOUT_MS', '1.5'],
    ['EMQ_CONNECT_TIMEOUT_MS', 'soon'],
  ])('refuses %s=%j, naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`^${name} is invalid`));
  });

  it('reads EMQ_TLS_CA as PEM, or as the base64 of PEM', () => {
    const pem = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
    expect(loadConfig({ EMQ_TLS_CA: pem }).tlsCa).toBe(pem.trim());
    expect(loadConfig({ EMQ_TLS_CA: Buffer.from(pem).toString('base64') }).tlsCa).toBe(pem);
  });

  it('refuses an EMQ_TLS_CA that is neither PEM nor base64 of PEM', () => {
    expect(() => loadConfig({ EMQ_TLS_CA: 'not a certificate' })).toThrow(/^EMQ_TLS_CA is invalid/);
  });

  it('does not echo a refused value, which may hold a credential', () => {
    expect(() => loadConfig({ EMQ_URL: 'http://user:hunter2@cache:6379' })).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining('hunter2') }),
    );
  });
  describe('IAM authentication', () => {
    const iam = {
      EMQ_IAM_AUTH: 'true',
      EMQ_USERNAME: 'emq-abc-app',
      EMQ_IAM_CACHE_NAME: 'Emq-Cache-1',
      EMQ_IAM_REGION: 'eu-west-1',
    };

    it('is off by default', () => {
      expect(loadConfig({}).iam).toBeUndefined();
      expect(loadConfig({ EMQ_IAM_AUTH: 'false', EMQ_PASSWORD: 'p' }).iam).toBeUndefined();
    });

    it('reads the user, the lowercased cache name and the region tokens are signed for', () => {
      expect(loadConfig(iam).iam).toEqual({
        userId: 'emq-abc-app',
        cacheName: 'emq-cache-1',
        region: 'eu-west-1',
        serverless: false,
        service: 'elasticache',
      });
      expect(loadConfig({ ...iam, EMQ_IAM_SERVERLESS: 'true' }).iam?.serverless).toBe(true);
      expect(loadConfig({ ...iam, EMQ_IAM_SERVICE: 'memorydb' }).iam?.service).toBe('memorydb');
    });

    it("takes Lambda's AWS_REGION when EMQ_IAM_REGION is not set", () => {
      expect(loadConfig({ ...iam, EMQ_IAM_REGION: '', AWS_REGION: 'us-east-2' }).iam?.region).toBe(
        'us-east-2',
      );
    });

    it.each([
      ['EMQ_USERNAME', { EMQ_USERNAME: '' }],
      ['EMQ_IAM_CACHE_NAME', { EMQ_IAM_CACHE_NAME: '' }],
      ['EMQ_IAM_CACHE_NAME', { EMQ_IAM_CACHE_NAME: 'has/slash' }],
      ['EMQ_IAM_REGION', { EMQ_IAM_REGION: '' }],
      ['EMQ_IAM_REGION', { EMQ_IAM_REGION: 'Europe' }],
      ['EMQ_PASSWORD', { EMQ_PASSWORD: 'also-a-password' }],
      ['EMQ_SECRET_ARN', { EMQ_SECRET_ARN: 'arn:aws:secretsmanager:eu-west-1:1:secret:x' }],
      ['EMQ_IAM_SERVERLESS', { EMQ_IAM_SERVERLESS: 'yes' }],
      ['EMQ_IAM_SERVICE', { EMQ_IAM_SERVICE: 'redis' }],
      ['EMQ_IAM_AUTH', { EMQ_IAM_AUTH: 'on' }],
    ])('refuses IAM with a bad or conflicting %s', (name, change) => {
      expect(() => loadConfig({ ...iam, ...change })).toThrow(new RegExp(`^${name} is invalid`));
    });
  });
});
