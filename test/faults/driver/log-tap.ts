/**
 * Taps the functions' JSON log while the load runs: it keeps what the SQS face said about each
 * SQS record (its outcome, job id or error code), which is all a batch response leaves out, and
 * drops every other line so a long run does not flood the test output.
 */
import { setLogSink } from '../../../functions/shared/log.js';

export interface SqsRecordLine {
  readonly outcome: string;
  readonly id: string | undefined;
  readonly code: string | undefined;
}

export class LogTap {
  readonly #lines = new Map<string, SqsRecordLine>();
  #restore: ((line: string) => void) | undefined;

  /** Starts taking the log lines; `close()` gives them back to the previous sink. */
  open(): void {
    // DEBUG: the lines of admitted SQS records are DEBUG lines.
    this.#restore = setLogSink((line) => this.#take(line), 'debug');
  }

  close(): void {
    if (this.#restore !== undefined) setLogSink(this.#restore);
    this.#restore = undefined;
  }

  /** The last line about an SQS record, removed so the next delivery is read afresh. */
  lineOf(messageId: string): SqsRecordLine | undefined {
    const line = this.#lines.get(messageId);
    this.#lines.delete(messageId);
    return line;
  }

  #take(line: string): void {
    // Cheap test first: most lines are HTTP requests and metrics.
    if (!line.includes('"sqs record"')) return;
    const fields = JSON.parse(line) as Record<string, unknown>;
    if (typeof fields.messageId !== 'string') return;
    this.#lines.set(fields.messageId, {
      outcome: String(fields.disposition),
      id: typeof fields.id === 'string' ? fields.id : undefined,
      code: typeof fields.code === 'string' ? fields.code : undefined,
    });
  }
}
