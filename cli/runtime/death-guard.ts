import { spawnSync } from 'node:child_process';

let guard: readonly string[] | undefined;

/**
 * The command prefix that ties a child's life to its parent: on Linux `setpriv --pdeathsig
 * KILL` makes the kernel SIGKILL the server when the test worker, bench or stack dies, even by
 * SIGKILL, where no JavaScript hook runs. Empty where setpriv is missing (macOS).
 */
export function deathGuard(): readonly string[] {
  if (guard === undefined) {
    const probe =
      process.platform === 'linux'
        ? spawnSync('setpriv', ['--pdeathsig', 'KILL', '--', 'true'], { stdio: 'ignore' })
        : undefined;
    guard = probe?.status === 0 ? ['setpriv', '--pdeathsig', 'KILL', '--'] : [];
  }
  return guard;
}
