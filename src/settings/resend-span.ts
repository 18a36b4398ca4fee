/**
 * How long one invocation may go on sending one admission, and so how long its idempotency
 * record must live at least (docs/reliability.md, "The resend span"): a record that expires
 * before the last send of the same call turns that send into a second job. The admission code
 * keeps to this span (src/admission/admission.ts sends nothing again past resendUntil), and
 * loadConfig refuses an EMQ_DEDUPE_TTL_MS shorter than it, so the two cannot drift: both read
 * this one function. It reads two timings and nothing else, so it needs no Config.
 */

/**
 * Reconnect windows one admission may wait out within one invocation: the first, and one more
 * for what a reconnect mends (src/admission/admission.ts runs them).
 */
export const RECONNECT_WINDOWS = 2;

/** The settings the span is made of. */
export interface SpanSettings {
  readonly connectTimeoutMs: number;
  readonly commandTimeoutMs: number;
}

/**
 * The longest span from an admission's first send to the end of its last within one
 * invocation. Each window waits for the connection (and sends again) for at most the connect
 * timeout, and its last send then waits at most the command timeout for its reply (a WAIT
 * inside it); the reconnect backoffs fall within the connect timeout.
 */
export function resendSpanMs(settings: SpanSettings): number {
  return RECONNECT_WINDOWS * (settings.connectTimeoutMs + settings.commandTimeoutMs);
}

/**
 * The time (Date.now() ms) from which admissions first sent at `firstSendMs` are not sent
 * again: the span less the last send's own wait, so that every send has ended within the span.
 */
export function resendUntil(settings: SpanSettings, firstSendMs: number): number {
  return firstSendMs + resendSpanMs(settings) - settings.commandTimeoutMs;
}
