import { setTimeout as sleep } from 'node:timers/promises';

const POLL_MS = 25;

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Polls `check` until it resolves to undefined (done). Any other value, or a rejection, is
 * the reason it is not done yet, reported if time runs out. `abandon` ends the wait as soon
 * as it resolves, even in the middle of a check: something that answers the port without
 * being the server (a port race) can hold a check for its whole timeout.
 */
export async function waitFor(
  what: string,
  timeoutMs: number,
  check: () => Promise<string | undefined>,
  abandon?: Promise<Error>,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const fatal = abandon?.then((error) => ({ fatal: error }));
  let reason = 'never checked';
  for (;;) {
    const attempt = check().then(
      (pending) => ({ pending }),
      (error: unknown) => ({ pending: describe(error) }),
    );
    const step = await Promise.race(fatal === undefined ? [attempt] : [attempt, fatal]);
    if ('fatal' in step) throw step.fatal;
    if (step.pending === undefined) return;
    reason = step.pending;
    if (Date.now() >= deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}: ${reason}`);
    }
    await sleep(POLL_MS);
  }
}
