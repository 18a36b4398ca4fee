/**
 * The parsers of the settings table's rows (settings-table.ts): each turns one variable's
 * trimmed, non-empty value into its Config value, or throws a ConfigError naming the variable
 * and what it expects. The value itself is never echoed: it may be a URL with credentials or a
 * password.
 */
import { assertQueue } from '../keyspace/keyspace.js';
import { ConfigError, EmqError } from '../outcomes/outcomes.js';

/** Reads one variable: its trimmed value, undefined when unset or empty. */
export type Read = (name: string) => string | undefined;

/** The range a whole-number row accepts. */
export interface Bounds {
  readonly min: number;
  readonly max: number;
}

/** What a parser knows of its row: the variable it names in errors, and any bounds. */
export interface RowFacts {
  readonly env: string;
  readonly bounds?: Bounds;
}

/** One row's parser. `read` serves a value made of several variables (IAM authentication). */
export type Parser<T> = (value: string, row: RowFacts, read: Read) => T;

/**
 * The server-side families of docs/wire.md "The calls", and `auto`: the first one the servers run.
 */
export const FAMILY_CHOICES = ['auto', 'native', 'function', 'script'] as const;
export type FamilyChoice = (typeof FAMILY_CHOICES)[number];

/** The AWS services whose caches take IAM tokens: the service each token is signed for. */
const IAM_SERVICES = ['elasticache', 'memorydb'] as const;
export type IamService = (typeof IAM_SERVICES)[number];

/** ElastiCache or MemoryDB IAM authentication: what each token is signed for (EMQ_USERNAME is the user id). */
export interface IamAuthConfig {
  /** The IAM-enabled RBAC user; its user name equals its user id. */
  readonly userId: string;
  /** `EMQ_IAM_CACHE_NAME`: the replication group id or Serverless cache name, lowercased. */
  readonly cacheName: string;
  /** `EMQ_IAM_REGION`, else `AWS_REGION` (Lambda sets it): the region tokens are signed for. */
  readonly region: string;
  /** `EMQ_IAM_SERVERLESS`: a Serverless cache. Default `false`. */
  readonly serverless: boolean;
  /** `EMQ_IAM_SERVICE`: the service tokens are signed for. Default `elasticache`. */
  readonly service: IamService;
}

export function bad(name: string, expected: string): ConfigError {
  return new ConfigError(`${name} is invalid: expected ${expected}.`);
}

/** Any text: the variable as given. */
export const text: Parser<string> = (value) => value;

export const urls: Parser<readonly string[]> = (value, row) => {
  const list = value.split(',').map((part) => part.trim());
  for (const url of list) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw bad(
        row.env,
        'redis://host:port or rediss://host:port, comma-separated for cluster seeds',
      );
    }
    if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') {
      throw bad(row.env, 'URLs with the redis:// or rediss:// scheme');
    }
  }
  return list;
};

export const flag: Parser<boolean> = (value, row) => {
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw bad(row.env, '`true` or `false`');
};

export const familyChoice: Parser<FamilyChoice> = (value, row) => {
  const found = FAMILY_CHOICES.find((option) => option === value);
  if (found === undefined) throw bad(row.env, `one of ${FAMILY_CHOICES.join(', ')}`);
  return found;
};

/** A whole number within the row's bounds (every row parsed by this one has bounds). */
export const wholeNumber: Parser<number> = (value, row) => {
  const range = row.bounds;
  if (range === undefined) throw new Error(`${row.env} has no bounds for a whole number`);
  const parsed = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(parsed) || parsed < range.min) {
    throw bad(row.env, `a whole number of at least ${range.min}`);
  }
  if (parsed > range.max) throw bad(row.env, `a whole number of at most ${range.max}`);
  return parsed;
};

export const wire: Parser<string> = (value, row) => {
  if (!/^[\x21-\x7e]{1,64}$/.test(value)) throw bad(row.env, '1 to 64 printable ASCII characters');
  return value;
};

export const queue: Parser<string> = (value, row) => {
  try {
    assertQueue(value);
  } catch (error) {
    if (error instanceof EmqError) throw bad(row.env, 'a queue name: 1 to 64 of A-Z a-z 0-9 . _ -');
    throw error;
  }
  return value;
};

/** PEM as given, else base64 of PEM (how a deployment passes it in one environment value). */
export const tlsCa: Parser<string> = (value, row) => {
  if (value.includes('-----BEGIN CERTIFICATE-----')) return value;
  const decoded = /^[A-Za-z0-9+/=\s]+$/.test(value) ? Buffer.from(value, 'base64').toString() : '';
  if (!decoded.includes('-----BEGIN CERTIFICATE-----'))
    throw bad(row.env, 'PEM certificates, or their base64');
  return decoded;
};

export const dlqUrl: Parser<string> = (value, row) => {
  if (!/^https?:\/\/\S+$/.test(value)) throw bad(row.env, 'an SQS queue URL (https://...)');
  return value;
};

/**
 * `EMQ_IAM_AUTH` and its companions, the variables IAM_COMPANIONS (settings-table.ts) documents:
 * undefined unless the flag is true, and then every companion checked.
 */
export const iamAuth: Parser<IamAuthConfig | undefined> = (value, row, read) => {
  if (!flag(value, row, read)) return undefined;
  const userId = read('EMQ_USERNAME');
  const cacheName = read('EMQ_IAM_CACHE_NAME')?.toLowerCase();
  const region = read('EMQ_IAM_REGION') ?? read('AWS_REGION');
  if (userId === undefined)
    throw bad('EMQ_USERNAME', `the IAM-enabled user id when ${row.env} is true`);
  if (cacheName === undefined || !/^[a-z][a-z0-9-]{0,62}$/.test(cacheName))
    throw bad(
      'EMQ_IAM_CACHE_NAME',
      `the replication group id, Serverless cache name or MemoryDB cluster name when ${row.env} is true`,
    );
  if (region === undefined || !/^[a-z]{2}(-[a-z0-9]+)+-\d+$/.test(region))
    throw bad(
      'EMQ_IAM_REGION',
      `an AWS region such as eu-west-1 (or AWS_REGION) when ${row.env} is true`,
    );
  // One source of credentials: a password beside IAM would be used by nothing, or by mistake.
  for (const name of ['EMQ_PASSWORD', 'EMQ_SECRET_ARN']) {
    if (read(name) !== undefined) throw bad(name, `unset when ${row.env} is true`);
  }
  const serverless = flag(
    read('EMQ_IAM_SERVERLESS') ?? 'false',
    { env: 'EMQ_IAM_SERVERLESS' },
    read,
  );
  const service = read('EMQ_IAM_SERVICE') ?? 'elasticache';
  const known = IAM_SERVICES.find((name) => name === service);
  if (known === undefined) throw bad('EMQ_IAM_SERVICE', IAM_SERVICES.join(' or '));
  return { userId, cacheName, region, serverless, service: known };
};
