/**
 * What must hold after any generated input, whatever it was (docs/security.md): the answer's
 * headers, the log lines it cost, and the keys it wrote. Each check returns what broke it
 * (empty when it held), so a failing property prints the offending value, not just `false`.
 */
import type { LogSink } from '../../../functions/shared/log.js';

/**
 * The longest log line any input may cost, in bytes. A line is this project's own fields (level,
 * message, service, time, request id, route, status, codes, an operator detail and a server's
 * cause text written by this project, the EMF metrics block): under 4 KiB. On top of those it
 * quotes a few caller values (queue, id, messageId, dropped attribute names), each at most 256
 * bytes, which JSON escaping can grow six-fold at worst (a control byte is written `\u00XX`):
 * 1.5 KiB each. 16 KiB leaves room for eight of them; one unbounded value (a 1 MiB queue
 * segment logged 1 MiB) is far past it.
 */
export const LOG_LINE_BOUND_BYTES = 16 * 1024;

/** A sink that keeps the size of every line over the bound, and the longest line seen. */
export interface LogWatch {
  readonly sink: LogSink;
  /** The lines over the bound since the last `take`, cut to their first 200 characters. */
  take(): string[];
  /** The longest line seen, in bytes (reported, to tune the bound). */
  readonly longest: () => number;
}

export function watchLogs(keep?: (line: string) => void): LogWatch {
  let over: string[] = [];
  let longest = 0;
  return {
    sink(line) {
      const bytes = Buffer.byteLength(line, 'utf8');
      longest = Math.max(longest, bytes);
      if (bytes > LOG_LINE_BOUND_BYTES) over.push(`${bytes} bytes: ${line.slice(0, 200)}…`);
      keep?.(line);
    },
    take() {
      const taken = over;
      over = [];
      return taken;
    },
    longest: () => longest,
  };
}

/** Header values holding CR or LF (a response-splitting vector on any front). */
export function headerFaults(headers: unknown): string[] {
  if (typeof headers !== 'object' || headers === null) return [];
  return Object.entries(headers as Record<string, unknown>)
    .filter(([, value]) => typeof value !== 'string' || /[\r\n]/.test(value))
    .map(([name, value]) => `${name}: ${JSON.stringify(value)?.slice(0, 200)}`);
}

/**
 * A `Location` that a browser would not resolve on the API's own origin: it must be a path
 * (one leading `/`, not `//` nor `/\`, which browsers read as another host) of printable ASCII
 * without spaces or backslashes, so every prefix the event held reached it percent-encoded.
 */
export function locationFaults(headers: unknown): string[] {
  const location = (headers as Record<string, unknown> | null)?.location;
  if (location === undefined) return [];
  if (typeof location === 'string' && /^\/(?![/\\])[\x21-\x5b\x5d-\x7e]*$/.test(location)) {
    return [];
  }
  return [`location: ${JSON.stringify(location)?.slice(0, 200)}`];
}

/** `emq:{<queue>}:...` with the queue a valid name: the only keys a request may write. */
const QUEUE_KEY = /^emq:\{([A-Za-z0-9._-]{1,64})\}:/;

/**
 * Written keys outside the keyspace of `queues` (any valid queue when undefined): the wire
 * identity `{emq}:version` among them, which no request may touch.
 */
export function keyFaults(written: readonly string[], queues?: readonly string[]): string[] {
  return written.filter((key) => {
    const queue = QUEUE_KEY.exec(key)?.[1];
    return queue === undefined || (queues !== undefined && !queues.includes(queue));
  });
}

/** Long runs of one character cut, and the whole cut at `max`: a 1 MiB value prints short. */
export function shortText(value: unknown, max = 1_500): string {
  const text = (typeof value === 'string' ? value : JSON.stringify(value)) ?? String(value);
  const cut = text.replace(
    /(.)\1{99,}/gsu,
    (run, char: string) => `${char.repeat(8)}…(${run.length} × ${JSON.stringify(char)})`,
  );
  return cut.length > max ? `${cut.slice(0, max)}…` : cut;
}

/**
 * Breaches of the invariants, collected across a run rather than thrown at the first: one
 * run then reports every invariant (or class of input) that broke, each with its first input,
 * where a thrown one would hide the others behind it. A run asserts `summary()` is empty.
 */
export class Violations {
  readonly #first = new Map<string, { count: number; example: string }>();

  /** Notes `faults` (nothing when empty) against `invariant`, with the input that caused them. */
  note(invariant: string, faults: readonly unknown[], input: unknown): void {
    if (faults.length === 0) return;
    const seen = this.#first.get(invariant);
    if (seen !== undefined) {
      seen.count += 1;
      return;
    }
    this.#first.set(invariant, {
      count: 1,
      example: `${shortText(faults, 600)} for ${shortText(input)}`,
    });
  }

  /** Each broken invariant: how many inputs broke it, and the first of them. */
  summary(): Record<string, string> {
    return Object.fromEntries(
      [...this.#first].map(([invariant, { count, example }]) => [
        invariant,
        `${count} input(s); first: ${example}`,
      ]),
    );
  }
}

/** Counts by label, as a run's summary prints them: `label: count`, sorted by label. */
export function tally(counts: ReadonlyMap<string, number>): string {
  return [...counts]
    .sort()
    .map(([label, count]) => `${label}: ${count}`)
    .join(', ');
}
