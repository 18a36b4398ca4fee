// ElastiCache IAM tokens against a fixed clock and fixed credentials: the SDK signer's output
// is checked against SigV4 computed here step by step from the specification, and the token
// source refreshes ahead of the 15-minute expiry.
import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  IamTokenSource,
  signIamToken,
  TOKEN_REFRESH_AFTER_MS,
  TOKEN_VALIDITY_SECONDS,
} from '../../functions/shared/iam-token.js';

const CREDENTIALS = {
  accessKeyId: 'AKIDEXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
  sessionToken: 'FwoGZXIvYXdzEXAMPLE/session+token==',
};
const NOW = new Date('2026-12-01T10:00:00.000Z');
const TARGET = {
  userId: 'emq-app-iam',
  cacheName: 'emq-cluster-1',
  region: 'eu-west-1',
  serverless: false,
};

/** RFC 3986 encoding as SigV4 wants it. */
const encode = (value: string) =>
  encodeURIComponent(value).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );

/** A SigV4 query-string presign of GET http://<cache>/?<query>, written from the spec. */
function expectedSignature(query: Record<string, string>, service = 'elasticache'): string {
  const canonicalQuery = Object.keys(query)
    .sort()
    .map((key) => `${encode(key)}=${encode(query[key] ?? '')}`)
    .join('&');
  const canonicalRequest = [
    'GET',
    '/',
    canonicalQuery,
    `host:${TARGET.cacheName}\n`,
    'host',
    createHash('sha256').update('').digest('hex'),
  ].join('\n');
  const scope = `20261201/${TARGET.region}/${service}/aws4_request`;
  const toSign = [
    'AWS4-HMAC-SHA256',
    '20261201T100000Z',
    scope,
    createHash('sha256').update(canonicalRequest).digest('hex'),
  ].join('\n');
  let key: Buffer = createHmac('sha256', `AWS4${CREDENTIALS.secretAccessKey}`)
    .update('20261201')
    .digest();
  for (const part of [TARGET.region, service, 'aws4_request']) {
    key = createHmac('sha256', key).update(part).digest();
  }
  return createHmac('sha256', key).update(toSign).digest('hex');
}

function parse(token: string): { host: string; query: Record<string, string> } {
  const [host, rest] = token.split('/?');
  return {
    host: host ?? '',
    query: Object.fromEntries(new URLSearchParams(rest ?? '')),
  };
}

describe('signIamToken', () => {
  it('presigns connect for the user and cache, valid 15 minutes, exactly as SigV4 prescribes', async () => {
    const token = await signIamToken(TARGET, CREDENTIALS, NOW);
    expect(token.startsWith('emq-cluster-1/?')).toBe(true);
    expect(token).not.toMatch(/^https?:/);
    const { host, query } = parse(token);
    expect(host).toBe('emq-cluster-1');
    const { 'X-Amz-Signature': signature, ...signed } = query;
    expect(signed).toEqual({
      Action: 'connect',
      User: 'emq-app-iam',
      'X-Amz-Algorithm': 'AWS4-HMAC-SHA256',
      'X-Amz-Credential': 'AKIDEXAMPLE/20261201/eu-west-1/elasticache/aws4_request',
      'X-Amz-Date': '20261201T100000Z',
      'X-Amz-Expires': String(TOKEN_VALIDITY_SECONDS),
      'X-Amz-Security-Token': CREDENTIALS.sessionToken,
      'X-Amz-SignedHeaders': 'host',
    });
    expect(signature).toBe(expectedSignature(signed));
  });

  it('names the resource type for a Serverless cache, and signs it', async () => {
    const token = await signIamToken({ ...TARGET, serverless: true }, CREDENTIALS, NOW);
    const { 'X-Amz-Signature': signature, ...signed } = parse(token).query;
    expect(signed.ResourceType).toBe('ServerlessCache');
    expect(signature).toBe(expectedSignature(signed));
  });

  it('signs for memorydb where the cache is a MemoryDB cluster', async () => {
    const token = await signIamToken({ ...TARGET, service: 'memorydb' }, CREDENTIALS, NOW);
    const { 'X-Amz-Signature': signature, ...signed } = parse(token).query;
    expect(signed['X-Amz-Credential']).toBe('AKIDEXAMPLE/20261201/eu-west-1/memorydb/aws4_request');
    expect(signed).not.toHaveProperty('ResourceType');
    expect(signature).toBe(expectedSignature(signed, 'memorydb'));
  });

  it('changes with the clock and the credentials', async () => {
    const first = await signIamToken(TARGET, CREDENTIALS, NOW);
    expect(await signIamToken(TARGET, CREDENTIALS, NOW)).toBe(first);
    expect(await signIamToken(TARGET, CREDENTIALS, new Date(NOW.getTime() + 1_000))).not.toBe(
      first,
    );
    expect(await signIamToken(TARGET, { ...CREDENTIALS, secretAccessKey: 'other' }, NOW)).not.toBe(
      first,
    );
  });
});

describe('IamTokenSource', () => {
  it('reuses a token until it is 10 minutes old, then signs one from the current clock', async () => {
    let now = NOW.getTime();
    let resolved = 0;
    const source = new IamTokenSource(
      TARGET,
      async () => {
        resolved += 1;
        return CREDENTIALS;
      },
      () => now,
    );
    const [a, b] = await Promise.all([source.token(), source.token()]);
    expect(a).toBe(b);
    expect(resolved).toBe(1);
    now += TOKEN_REFRESH_AFTER_MS - 1;
    expect(await source.token()).toBe(a);
    now += 1;
    const fresh = await source.token();
    expect(fresh).not.toBe(a);
    expect(parse(fresh).query['X-Amz-Date']).toBe('20261201T101000Z');
    // Refreshed with at least 5 minutes of validity left on the one it replaces.
    expect(TOKEN_VALIDITY_SECONDS * 1_000 - TOKEN_REFRESH_AFTER_MS).toBeGreaterThanOrEqual(300_000);
  });

  it('tries again after credentials could not be resolved', async () => {
    let fail = true;
    const source = new IamTokenSource(
      TARGET,
      async () => {
        if (fail) throw new Error('no credentials yet');
        return CREDENTIALS;
      },
      () => NOW.getTime(),
    );
    await expect(source.token()).rejects.toThrow('no credentials yet');
    fail = false;
    expect(parse(await source.token()).query.User).toBe('emq-app-iam');
  });
});
