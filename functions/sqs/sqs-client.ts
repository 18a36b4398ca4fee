/**
 * The container's SQS client: the SDK's defaults (region, credentials, endpoint from the
 * environment), with two changes. An endpoint set in the environment (AWS_ENDPOINT_URL_SQS or
 * AWS_ENDPOINT_URL: LocalStack, ElasticMQ, a VPC endpoint) is where requests go; by default
 * the SDK would send to the queue URL's host instead. And the SDK's own warnings, which print
 * queue URLs to the console, become one JSON line without them.
 */
import type { SQSClient } from '@aws-sdk/client-sqs';
import { log } from '../shared/log.js';

/** Loads the SDK on first use: a container that never dead-letters never pays for it. */
export async function createSqsClient(env: NodeJS.ProcessEnv = process.env): Promise<SQSClient> {
  const { SQSClient } = await import('@aws-sdk/client-sqs');
  const endpointConfigured =
    (env.AWS_ENDPOINT_URL_SQS ?? env.AWS_ENDPOINT_URL ?? '') !== '' &&
    env.AWS_IGNORE_CONFIGURED_ENDPOINT_URLS !== 'true';
  const quiet = () => {};
  return new SQSClient({
    useQueueUrlAsEndpoint: !endpointConfigured,
    logger: {
      debug: quiet,
      info: quiet,
      warn: () => log('warn', 'sqs client warning'),
      error: () => log('error', 'sqs client error'),
    },
  });
}
