/**
 * Taps the functions' JSON log while the load runs: it keeps what the SQS face said about each
 * record (its outcome, job id or error code), which is all a batch response leaves out, and
 * drops every other line so a long run does not flood the test output.
 */
import { setLogSink } from '../../../functions/shared/log.js';

export interface RecordLine {
  readonly outcome: string;
  readonly id: string | undefined;
  readonly code: string | undefined;
}

export class LogTap {
  readonly #records = new Map<string, RecordLine>();
  #restore: ((line: string) => void) | undefined;

  /** Starts taking the log lines; `close()` gives them back to the previous sink. */
  open(): void {
    // DEBUG: the lines of admitted records are DEBUG lines.
    this.#restore = setLogSink((line) => this.#take(line), 'debug');
  }

  close(): void {
    if (this.#restore !== undefined) setLogSink(this.#restore);
    this.#restore = undefined;
  }

  /** The last line about a record, removed so the next delivery is read afresh. */
  recordOf(messageId: string): RecordLine | undefined {
    const line = this.#records.get(messageId);
    this.#records.delete(messageId);
    return line;
  }

  #take(line: string): void {
    // Cheap test first: most lines are HTTP requests and metrics.
    if (!line.includes('"sqs record"')) return;
    const fields = JSON.parse(line) as Record<string, unknown>;
    if (typeof fields.messageId !== 'string') return;
    this.#records.set(fields.messageId, {
      outcome: String(fields.disposition),
      id: typeof fields.id === 'string' ? fields.id : undefined,
      code: typeof fields.code === 'string' ? fields.code : undefined,
    });
  }
}
