/**
 * The SQS queue a command names by URL (`emq send`, `emq dlq`): the URL checked before any
 * AWS call, a client that reaches it, and what a failed call is told as. The SDK's own
 * configuration applies (region, credentials, AWS_ENDPOINT_URL_SQS); a loopback queue URL
 * (the local stack's emulator) needs none.
 */
import type { SQSClient } from '@aws-sdk/client-sqs';
import { CliFailure, EXIT_FAILED, usageFailure } from './failures.js';

/** What an SQS queue URL looks like, for the usage error of one that is not. */
export const QUEUE_URL_SHAPE =
  'https://sqs.<region>.amazonaws.com/<12-digit account id>/<queue name>';

export interface QueueUrl {
  readonly url: string;
  /** Whether the name ends in .fifo. */
  readonly fifo: boolean;
  /** The region the host names (sqs.<region>.amazonaws.com), if it names one. */
  readonly region: string | undefined;
  /** The emulator's endpoint, for a loopback URL; else none (the SDK's own endpoint). */
  readonly localEndpoint: string | undefined;
}

// SQS: an account id of 12 digits, a name of 1 to 80 of A-Z a-z 0-9 - _ (.fifo included).
const PATH = /^\/(\d{12})\/([A-Za-z0-9_-]{1,75}(\.fifo)?|[A-Za-z0-9_-]{1,80})$/;

/**
 * The queue URL `argument` (its name in the command's usage) holds, or a usage failure that
 * names the argument and the shape of a queue URL.
 */
export function parseQueueUrl(argument: string, value: string): QueueUrl {
  const refuse = (why: string) =>
    usageFailure(
      `${argument} ${shown(value)} is not an SQS queue URL (${why}): expected ${QUEUE_URL_SHAPE}; \`npm start -- --sqs\` prints the local ones.`,
    );
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw refuse('not a URL');
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    throw refuse(`the scheme is ${parsed.protocol} rather than https:`);
  }
  const path = PATH.exec(parsed.pathname);
  if (path === null || parsed.search !== '' || parsed.hash !== '') {
    throw refuse('the path is not /<account id>/<queue name>');
  }
  const host = parsed.hostname;
  const local = host === '127.0.0.1' || host === 'localhost' || host.endsWith('.localhost');
  return {
    url: value,
    fifo: path[3] !== undefined,
    region: /^sqs\.([a-z0-9-]+)\.(amazonaws\.com|localhost)$/.exec(host)?.[1],
    // Sent to directly: `*.localhost` need not resolve everywhere.
    localEndpoint: local ? `${parsed.protocol}//127.0.0.1:${parsed.port || '80'}` : undefined,
  };
}

/** A client for `queue`: the SDK's configuration, or fixed local settings for the emulator. */
export async function sqsClientFor(queue: QueueUrl): Promise<SQSClient> {
  // Loaded here: the commands that never touch SQS do not pay for the SDK.
  const { SQSClient } = await import('@aws-sdk/client-sqs');
  if (queue.localEndpoint !== undefined) {
    return new SQSClient({
      endpoint: queue.localEndpoint,
      region: queue.region ?? 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
  }
  // A queue lives in the region its URL names; without one the SDK's own region applies.
  return new SQSClient(queue.region === undefined ? {} : { region: queue.region });
}

/** The causes an SQS call fails for, by the SDK's error name or code, with the fix. */
const CAUSES: readonly { readonly test: RegExp; readonly text: string; readonly retry?: true }[] = [
  {
    test: /^CredentialsProviderError$/,
    text: 'no AWS credentials were found: set AWS_PROFILE, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY',
  },
  {
    test: /^(QueueDoesNotExist|AWS\.SimpleQueueService\.NonExistentQueue)$/,
    text: "the queue does not exist: check the URL's region, account id and queue name",
  },
  {
    test: /^(AccessDenied|AccessDeniedException|InvalidClientTokenId|UnrecognizedClientException|SignatureDoesNotMatch|ExpiredToken)$/,
    text: 'the credentials are refused, or lack the permission',
  },
  { test: /^(Region is missing|RegionMissing)/, text: 'no region: set AWS_REGION' },
  {
    test: /^(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|ECONNRESET|TimeoutError)$/,
    text: 'the endpoint did not answer: check the URL (a local one needs `npm start -- --sqs` running)',
    retry: true,
  },
  {
    test: /^(ThrottlingException|RequestThrottled|ServiceUnavailable)$/,
    text: 'SQS is busy',
    retry: true,
  },
];

/** An SQS call that failed, told as its cause; `action` is the IAM action the call needs. */
export function sqsFailure(code: string, action: string, error: unknown): CliFailure {
  const names = namesOf(error);
  const cause = CAUSES.find((candidate) => names.some((name) => candidate.test.test(name)));
  const seen = names.filter((name) => name !== 'Error').join(', ') || 'no error name';
  const why =
    cause === undefined
      ? 'SQS refused the call or did not answer'
      : cause.text.replace('the permission', `the permission ${action}`);
  return new CliFailure(code, `${capitalized(why)} (${seen}).`, EXIT_FAILED, cause?.retry === true);
}

/** The SDK error's name, its code and the code of its cause (a socket error is wrapped). */
function namesOf(error: unknown): string[] {
  const names: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 3 && current instanceof Error; depth++) {
    names.push(current.name);
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') names.push(code);
    if (current.message.startsWith('Region is missing')) names.push('Region is missing');
    current = current.cause;
  }
  return [...new Set(names)];
}

function capitalized(text: string): string {
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}`;
}

function shown(value: string): string {
  return JSON.stringify(value.length > 120 ? `${value.slice(0, 120)}…` : value);
}
