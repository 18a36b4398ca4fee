import { type ChildProcess, type SpawnOptions, spawn } from 'node:child_process';
import { deathGuard } from '../../cli/runtime/death-guard.js';
import { type ValkeyTool, valkeyBinary } from './binaries.js';

/**
 * Spawns the chosen Valkey's `tool` (EMQ_VALKEY_BIN, else PATH) under the death guard, so no
 * server outlives the process that started it. Every launcher spawns servers through here.
 */
export function spawnValkey(
  tool: ValkeyTool,
  args: readonly string[],
  options: SpawnOptions,
): ChildProcess {
  const [file = valkeyBinary(tool), ...rest] = [...deathGuard(), valkeyBinary(tool), ...args];
  return spawn(file, rest, options);
}
