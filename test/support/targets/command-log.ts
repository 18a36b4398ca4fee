/**
 * What the product sent a target: every command (with its subcommand) each target proxy
 * forwarded or refused, counted per user. The harness's own user is recorded too (replicas
 * sync through the proxies), and left out of the assertion: the harness may use what the
 * product may not.
 */

export interface CommandRecord {
  /** The ACL user the connection had authenticated as (`default` until AUTH or HELLO). */
  readonly user: string;
  /** Lowercase, as the client spelled it. */
  readonly command: string;
  /** Lowercase, for a container command (CLUSTER, CLIENT, SCRIPT, ...). */
  readonly subcommand: string | undefined;
  /** Why the proxy refused it (the service's refusal), when it did. */
  readonly refused: string | undefined;
  readonly count: number;
}

export type CommandSighting = Omit<CommandRecord, 'count'>;

/** `command` or `command|subcommand`, as Valkey's ACL and commandstats name it. */
export function fullName(record: Pick<CommandRecord, 'command' | 'subcommand'>): string {
  return record.subcommand === undefined
    ? record.command
    : `${record.command}|${record.subcommand}`;
}

export class CommandLog {
  readonly #counts = new Map<string, { sighting: CommandSighting; count: number }>();

  record(sighting: CommandSighting): void {
    const key = JSON.stringify([
      sighting.user,
      sighting.command,
      sighting.subcommand ?? null,
      sighting.refused ?? null,
    ]);
    const entry = this.#counts.get(key);
    if (entry === undefined) this.#counts.set(key, { sighting, count: 1 });
    else entry.count += 1;
  }

  /** Every distinct command seen since the last reset, with how often. */
  entries(): CommandRecord[] {
    return [...this.#counts.values()].map(({ sighting, count }) => ({ ...sighting, count }));
  }

  reset(): void {
    this.#counts.clear();
  }
}
