/**
 * One JSON line per event on stdout, which Lambda ships to CloudWatch Logs. Callers pass
 * fields they chose; payloads, credentials, endpoints and stack traces are never among them.
 * Lines below the level (log-config.ts) are not written, but a line's metrics always are:
 * a quiet log must not lose a metric.
 */
import { type Level, logSettings, type Threshold } from './log-config.js';

export type { Level } from './log-config.js';
export type Fields = Readonly<Record<string, string | number | boolean | undefined>>;

export type LogSink = (line: string) => void;

const RANK: Readonly<Record<Threshold, number>> = {
  debug: 10,
  info: 20,
  warn: 30,
  error: 40,
  silent: 100,
};

let sink: LogSink = (line) => process.stdout.write(`${line}\n`);
/** A level a test's sink asked for, over the environment's. */
let override: Threshold | undefined;

/**
 * Replaces where log lines go (tests read them). `level` overrides the environment's while
 * this sink is set (a test that reads per-record lines passes `debug`). Returns the previous sink.
 */
export function setLogSink(next: LogSink, level?: Threshold): LogSink {
  const previous = sink;
  sink = next;
  override = level;
  return previous;
}

/** True when a line at `level` would be written: callers skip building fields that would not. */
export function logs(level: Level): boolean {
  return RANK[level] >= RANK[override ?? logSettings().level];
}

/** Writes one line. `embedded` rides along unflattened: an EMF block makes the line a metric too. */
export function log(
  level: Level,
  message: string,
  fields: Fields = {},
  embedded: Readonly<Record<string, unknown>> = {},
): void {
  if (!logs(level)) {
    if (Object.keys(embedded).length > 0) writeRecord(embedded);
    return;
  }
  writeRecord({
    level,
    message,
    service: logSettings().service,
    time: new Date().toISOString(),
    ...fields,
    ...embedded,
  });
}

/** Writes one structured record as a line (metrics use it for their own shape). */
export function writeRecord(record: Readonly<Record<string, unknown>>): void {
  sink(JSON.stringify(record));
}

/** The operator-facing fields of an error: its class and code, never its stack or cause. */
export function errorFields(error: unknown): Fields {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return { error: error.name, errorCode: typeof code === 'string' ? code : undefined };
  }
  return { error: typeof error };
}
