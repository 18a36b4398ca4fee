/**
 * One JSON line per event on stdout, which Lambda ships to CloudWatch Logs. Callers pass
 * fields they chose; payloads, credentials, endpoints and stack traces are never among them.
 */
export type Level = 'debug' | 'info' | 'warn' | 'error';
export type Fields = Readonly<Record<string, string | number | boolean | undefined>>;

export type LogSink = (line: string) => void;

let sink: LogSink = (line) => process.stdout.write(`${line}\n`);

/** Replaces where log lines go (tests read them). Returns the previous sink. */
export function setLogSink(next: LogSink): LogSink {
  const previous = sink;
  sink = next;
  return previous;
}

/** Writes one line. `embedded` rides along unflattened: an EMF block makes the line a metric too. */
export function log(
  level: Level,
  message: string,
  fields: Fields = {},
  embedded: Readonly<Record<string, unknown>> = {},
): void {
  writeRecord({ level, message, time: new Date().toISOString(), ...fields, ...embedded });
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
