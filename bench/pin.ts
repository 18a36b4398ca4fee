/**
 * Client and servers on separate cores, as a Lambda function and its cache are on separate
 * machines. Left to the scheduler on a 2-vCPU VM, a sequential case ran either with client
 * and server handing off on one core or with a wake-up across cores per round trip, and the
 * mode flipped between rounds: measured with the same client and server, a raw single
 * EMQ.ENQUEUE took 25.7 µs of wall time per call on one core and 116.6 µs across two (14.6
 * and 58.7 µs of client CPU). Pinned, every case pays the cross-core wake-up a network round
 * trip stands for, and the modes no longer mix within a run. The log drain (log-pipe.ts) is
 * left to the scheduler: pinned to the client's core it woke on it for every line (HTTP POST
 * 4,218 -> 2,541 jobs/s). `--no-pin` leaves placement to the scheduler. Linux only (taskset); elsewhere, or on one core, nothing is pinned.
 */
import { execFileSync } from 'node:child_process';
import { cpus } from 'node:os';

export interface Placement {
  /** What the machine line says about placement. */
  readonly described: string;
  /** Pins a server process (and so its threads) to the servers' core. */
  server(pid: number): void;
}

const UNPINNED: Placement = { described: 'placement left to the scheduler', server: () => {} };

/** Pins this process to core 0 and answers how to pin servers to core 1. */
export function pinProcesses(wanted: boolean): Placement {
  if (!wanted || process.platform !== 'linux' || cpus().length < 2) return UNPINNED;
  const pin = (cpu: string, pid: number): boolean => {
    try {
      // -a: every thread of the process (Node's and Valkey's helper threads too).
      execFileSync('taskset', ['-a', '-p', '-c', cpu, String(pid)], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  };
  if (!pin('0', process.pid)) return UNPINNED;
  return {
    described: 'client pinned to core 0, servers to core 1',
    server: (pid) => {
      pin('1', pid);
    },
  };
}
