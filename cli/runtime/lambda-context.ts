/**
 * A Lambda context for running a function's handler outside Lambda (the `emq sqs` command
 * and the local stack). Only the fields the handlers read carry meaning.
 */
import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';

export interface LocalContextOptions {
  /** The function's name in logs. Default `emq-local`. */
  readonly functionName?: string;
  /** The invocation's time budget; the handlers answer early before it ends. Default 30000 ms. */
  readonly timeoutMs?: number;
  /** The request id. Default: a random UUID. */
  readonly requestId?: string;
}

/** The plain fields of a context as Lambda fills them for `functionName` (no functions). */
export function contextFields(functionName: string, requestId: string = randomUUID()) {
  return {
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: '512',
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
  } as const;
}

export function localContext(options: LocalContextOptions = {}): Context {
  const functionName = options.functionName ?? 'emq-local';
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  const unsupported = (): never => {
    throw new Error('Not available outside Lambda: the handlers must not call it.');
  };
  return {
    callbackWaitsForEmptyEventLoop: false,
    ...contextFields(functionName, options.requestId),
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: unsupported,
    fail: unsupported,
    succeed: unsupported,
  };
}
