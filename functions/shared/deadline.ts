/**
 * An invocation's answer before Lambda's own timeout. At the timeout Lambda kills the
 * invocation and resets the execution environment: the next event pays a cold start, an HTTP
 * caller hears API Gateway's 502 or 504 without a word of the function's, and nothing is
 * logged. A handler that answers a little earlier keeps its container and says what it knows.
 */
import type { Context } from 'aws-lambda';

/** When (Date.now() ms) an invocation must have answered: `marginMs` before Lambda's timeout. */
export function deadlineOf(
  context: Pick<Context, 'getRemainingTimeInMillis'>,
  marginMs: number,
): number {
  return Date.now() + context.getRemainingTimeInMillis() - marginMs;
}

/**
 * What `work` answers, or, if it has not answered by `deadlineMs`, what `atDeadline` answers
 * (or throws). `work` is not stopped, only no longer awaited: whatever it does past the
 * deadline is for the face to have prevented (nothing is sent past it).
 */
export async function answerBy<T>(
  deadlineMs: number,
  work: Promise<T>,
  atDeadline: () => T,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const due = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, Math.max(0, deadlineMs - Date.now()));
  }).then(atDeadline);
  try {
    return await Promise.race([work, due]);
  } finally {
    clearTimeout(timer);
  }
}
