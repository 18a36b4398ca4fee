/**
 * The function's log lines, made readable in a terminal: one short line per record, metrics
 * (EMF, meant for CloudWatch) left out. `--raw-logs` prints them as Lambda would.
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
  // The service name is the same on every line: left out in a terminal.
  const {
    _aws,
    level,
    message,
    time,
    service: _service,
    ...fields
  } = record as Record<string, unknown>;
  // A metrics-only record is left out; a log line that carries metrics loses them here.
  if (message === undefined) return undefined;
  const metricNames = emfNames(_aws);
  const clock = typeof time === 'string' ? time.slice(11, 23) : '';
  const rest = Object.entries(fields)
    .filter(([name, value]) => value !== undefined && !metricNames.has(name))
    .map(([name, value]) => `${name}=${bare(value) ? value : JSON.stringify(value)}`);
  return [clock, String(level ?? 'info').padEnd(5), String(message ?? ''), ...rest].join(' ');
}

function bare(value: unknown): value is string {
  return typeof value === 'string' && /^[^\s"]+$/.test(value);
}

/** The dimension and metric names an EMF block declares: the fields that are metrics. */
function emfNames(aws: unknown): Set<string> {
  const names = new Set<string>();
  const directives = (aws as { CloudWatchMetrics?: unknown } | undefined)?.CloudWatchMetrics;
  if (!Array.isArray(directives)) return names;
  for (const directive of directives as { Dimensions?: unknown; Metrics?: unknown }[]) {
    for (const set of Array.isArray(directive.Dimensions) ? directive.Dimensions : []) {
      for (const name of Array.isArray(set) ? set : []) names.add(String(name));
    }
    for (const metric of Array.isArray(directive.Metrics) ? directive.Metrics : []) {
      names.add(String((metric as { Name?: unknown }).Name));
    }
  }
  return names;
}
