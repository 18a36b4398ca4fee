/**
 * One JSON line per event on stdout, which Lambda ships to CloudWatch Logs. Callers pass
 * fields they chose; payloads, credentials, endpoints and stack traces are never among them,
 * and no string of a line is longer than MAX_LOGGED_BYTES, whoever wrote it.
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

const stdoutSink: LogSink = (line) => process.stdout.write(`${line}\n`);
let sink: LogSink = stdoutSink;
/** Lines kept for one write (see oneWrite), else undefined. */
let held: string[] | undefined;
/** A level a test's sink asked for, over the environment's. */
let override: Threshold | undefined;

/**
 * Replaces where log lines go (tests read them). `level` overrides the environment's while
 * this sink is set (a test that reads the per-SQS-record lines passes `debug`). Returns the previous sink.
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
    if (Object.keys(embedded).length > 0) writeLine(embedded);
    return;
  }
  const line: Record<string, unknown> = {
    level,
    message,
    service: logSettings().service,
    time: new Date().toISOString(),
  };
  // Assigned in the spreads' order (a later key replaces an earlier one in its place).
  for (const name in fields) line[name] = fields[name];
  for (const name in embedded) line[name] = embedded[name];
  writeLine(line);
}

/**
 * The most bytes of one string a line carries (docs/security.md): a field can hold what a
 * caller sent (a queue name from the path, a server's text), and one request must not write
 * megabytes of log.
 */
export const MAX_LOGGED_BYTES = 256;

/**
 * `value` as logged: itself when it fits MAX_LOGGED_BYTES of UTF-8, else its head cut at a
 * character boundary and a marker saying how much was left out, the whole within the bound.
 */
export function bounded(value: string): string {
  // At most 3 UTF-8 bytes per UTF-16 unit: short strings need no count.
  if (value.length * 3 <= MAX_LOGGED_BYTES) return value;
  const size = Buffer.byteLength(value, 'utf8');
  if (size <= MAX_LOGGED_BYTES) return value;
  // The head's units each make at least one byte, so this many hold more than the bound.
  const head = Buffer.from(value.slice(0, MAX_LOGGED_BYTES + 1), 'utf8');
  let marker = '';
  let cut = MAX_LOGGED_BYTES;
  // The marker names the bytes left out, which depend on the cut: settle both.
  for (;;) {
    marker = `…[${size - cut} more bytes]`;
    let end = MAX_LOGGED_BYTES - Buffer.byteLength(marker, 'utf8');
    // Back to the first byte of a character (continuation bytes are 10xxxxxx).
    while (end > 0 && ((head[end] as number) & 0xc0) === 0x80) end -= 1;
    if (end === cut) break;
    cut = end;
  }
  return `${head.subarray(0, cut).toString('utf8')}${marker}`;
}

/** Writes one log line of these fields (metrics use it for their own shape). */
export function writeLine(fields: Readonly<Record<string, unknown>>): void {
  const bound: Record<string, unknown> = {};
  for (const name in fields) {
    const value = fields[name];
    bound[bounded(name)] = typeof value === 'string' ? bounded(value) : value;
  }
  const line = JSON.stringify(bound);
  if (held === undefined) sink(line);
  else held.push(line);
}

/**
 * Runs `report` and writes every line it logs in one write to stdout: each write(2) into
 * Lambda's stdout pipe wakes its reader, and on a small host one costs as much as the rest of
 * a batch's report. The lines are the same, in the same order; another sink (a test's) still
 * gets them one by one. Lines logged before a throw are written all the same.
 */
export function oneWrite(report: () => void): void {
  if (held !== undefined) {
    report();
    return;
  }
  held = [];
  try {
    report();
  } finally {
    const lines = held;
    held = undefined;
    if (sink !== stdoutSink) for (const line of lines) sink(line);
    else if (lines.length > 0) process.stdout.write(`${lines.join('\n')}\n`);
  }
}

/** The operator-facing fields of an error: its class and code, never its stack or cause. */
export function errorFields(error: unknown): Fields {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return { error: error.name, errorCode: typeof code === 'string' ? code : undefined };
  }
  return { error: typeof error };
}
