/**
 * `<data-dir>/stack.json`: what a running stack started (its pid, URLs, children). It doubles
 * as a lock, so two stacks never share a data folder, and tools can find the running stack.
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface StackState {
  /** The start script's pid. */
  readonly pid: number;
  readonly http: string;
  readonly valkey: { readonly urls: readonly string[]; readonly cluster: boolean };
  /** Every process the stack started and stops. */
  readonly children: readonly { readonly name: string; readonly pid: number }[];
}

export function statePath(dataDir: string): string {
  return join(dataDir, 'stack.json');
}

/** Claims the data folder; throws when a live stack already uses it. */
export async function claim(dataDir: string): Promise<void> {
  await mkdir(dataDir, { recursive: true });
  const owner = await ownerOf(dataDir);
  if (owner !== undefined && owner !== process.pid && alive(owner)) {
    throw new Error(
      `Another local stack (pid ${owner}) uses ${dataDir}; stop it, or pass another --data-dir.`,
    );
  }
  await writeFile(statePath(dataDir), `${JSON.stringify({ pid: process.pid })}\n`);
}

export async function writeState(dataDir: string, state: StackState): Promise<void> {
  await writeFile(statePath(dataDir), `${JSON.stringify(state, null, 2)}\n`);
}

/** Gives the folder up, unless another stack has claimed it since. */
export async function release(dataDir: string): Promise<void> {
  if ((await ownerOf(dataDir)) === process.pid) await rm(statePath(dataDir), { force: true });
}

async function ownerOf(dataDir: string): Promise<number | undefined> {
  try {
    const { pid } = JSON.parse(await readFile(statePath(dataDir), 'utf8')) as { pid?: unknown };
    return typeof pid === 'number' ? pid : undefined;
  } catch {
    return undefined;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
