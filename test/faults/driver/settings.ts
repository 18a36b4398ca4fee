/**
 * How much load a fault scenario sends. CI runs a small N so the whole fault and security suite
 * stays within a few minutes on two cores; a full run sets EMQ_FAULTS_N (e.g. 10000) by hand.
 *
 * Read once, when the suite loads: the scenarios point the function containers at their
 * servers through EMQ_* variables and clear the others (clearEmqEnv), these included.
 */

/** Logical requests per scenario when EMQ_FAULTS_N is not set. */
export const CI_REQUESTS = 1_000;

export interface FaultSettings {
  /** `EMQ_FAULTS_N`: logical requests per scenario, split between HTTP and SQS. Default 1000. */
  readonly requests: number;
  /** `EMQ_FAULTS_REPORT`: a file that gets one JSON line of figures per scenario. Default: none. */
  readonly reportFile: string | undefined;
  /** `EMQ_FUZZ_SEED`: replays a failed fuzz run (fast-check prints the seed). Default: random. */
  readonly fuzzSeed: number | undefined;
}

export function readSettings(env: NodeJS.ProcessEnv): FaultSettings {
  const text = (name: string): string | undefined => {
    const value = env[name]?.trim();
    return value === undefined || value === '' ? undefined : value;
  };
  const n = text('EMQ_FAULTS_N');
  const seed = text('EMQ_FUZZ_SEED');
  if (n !== undefined && (!/^\d+$/.test(n) || Number(n) < 20)) {
    throw new Error('EMQ_FAULTS_N must be a whole number of at least 20');
  }
  if (seed !== undefined && !/^-?\d+$/.test(seed)) {
    throw new Error('EMQ_FUZZ_SEED must be a whole number (the seed fast-check printed)');
  }
  return {
    requests: n === undefined ? CI_REQUESTS : Number(n),
    reportFile: text('EMQ_FAULTS_REPORT'),
    fuzzSeed: seed === undefined ? undefined : Number(seed),
  };
}

export const settings: FaultSettings = readSettings(process.env);

/**
 * How long one scenario may run: the fault's own time plus the load, which grows with N (with
 * AOF `appendfsync always` every write waits for the disk). Tests never assert speed; this
 * only keeps a large hand-run N from hitting the runner's default 30 s.
 */
export const SCENARIO_TIMEOUT_MS = Math.max(120_000, settings.requests * 15);
