/**
 * Lambda entry point of the fence installer: the onEvent function of the CDK provider
 * framework (which talks to CloudFormation; this function only returns or throws).
 */
import type { CloudFormationCustomResourceEvent, Context } from 'aws-lambda';
import { type FenceResult, onFenceEvent } from './on-event.js';

/** Time kept back from the function timeout so a last failure is still reported. */
const REPORT_MARGIN_MS = 15_000;

export const handler = (
  event: CloudFormationCustomResourceEvent,
  context: Pick<Context, 'getRemainingTimeInMillis'>,
): Promise<FenceResult> =>
  onFenceEvent(event, {
    retryForMs: Math.max(0, context.getRemainingTimeInMillis() - REPORT_MARGIN_MS),
  });
