/**
 * What the server spent on a round, from INFO: CPU (used_cpu_user + used_cpu_sys, the whole
 * process: parsing and networking included), command time (commandstats usec of the commands
 * a case sends at top level: commands a script or the module calls inside are counted by the
 * server as well, so summing every row would count them twice) and memory.
 */
import type { Valkey } from 'iovalkey';

export interface ServerSnapshot {
  readonly cpuSeconds: number;
  readonly usedMemory: number;
  /** usec and calls per command name (lower case, as INFO names them). */
  readonly commands: ReadonlyMap<string, { readonly usec: number; readonly calls: number }>;
}

export async function snapshot(admin: Valkey): Promise<ServerSnapshot> {
  const text = await admin.info('everything');
  const field = (name: string): number =>
    Number(new RegExp(`^${name}:(\\S+)`, 'm').exec(text)?.[1] ?? 0);
  const commands = new Map<string, { usec: number; calls: number }>();
  for (const match of text.matchAll(/^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/gm)) {
    commands.set(match[1] as string, { calls: Number(match[2]), usec: Number(match[3]) });
  }
  return {
    cpuSeconds: field('used_cpu_user') + field('used_cpu_sys'),
    usedMemory: field('used_memory'),
    commands,
  };
}

export interface ServerDelta {
  readonly cpuUsec: number;
  readonly commandUsec: number;
  readonly memoryBytes: number;
  /** Calls per command, every command (nested ones too), to see what a case really sent. */
  readonly calls: Readonly<Record<string, number>>;
  /** commandstats usec per command, nested ones too (where the server's time goes). */
  readonly usec: Readonly<Record<string, number>>;
}

export function deltaOf(
  before: ServerSnapshot,
  after: ServerSnapshot,
  topLevel: readonly string[],
): ServerDelta {
  let commandUsec = 0;
  const calls: Record<string, number> = {};
  const usec: Record<string, number> = {};
  for (const [name, now] of after.commands) {
    const then = before.commands.get(name) ?? { usec: 0, calls: 0 };
    if (now.calls === then.calls) continue;
    calls[name] = now.calls - then.calls;
    usec[name] = now.usec - then.usec;
    if (topLevel.includes(name)) commandUsec += now.usec - then.usec;
  }
  return {
    cpuUsec: (after.cpuSeconds - before.cpuSeconds) * 1e6,
    commandUsec,
    memoryBytes: after.usedMemory - before.usedMemory,
    calls,
    usec,
  };
}
