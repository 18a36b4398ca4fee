/**
 * The function's log lines, made readable in a terminal: one short line per record, metrics
 * records (EMF, meant for CloudWatch) left out. `--raw-logs` prints them as Lambda would.
 */

/** Formats one JSON log line; returns undefined for a line to leave out. */
export function readableLine(line: string): string | undefined {
  let record: unknown;
  try {
    record = JSON.parse(line);
  } catch {
    return line;
  }
  if (typeof record !== 'object' || record === null || Array.isArray(record)) return line;
  const { _aws, level, message, time, ...fields } = record as Record<string, unknown>;
  if (_aws !== undefined) return undefined;
  const clock = typeof time === 'string' ? time.slice(11, 23) : '';
  const rest = Object.entries(fields)
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => `${name}=${bare(value) ? value : JSON.stringify(value)}`);
  return [clock, String(level ?? 'info').padEnd(5), String(message ?? ''), ...rest].join(' ');
}

function bare(value: unknown): value is string {
  return typeof value === 'string' && /^[^\s"]+$/.test(value);
}
