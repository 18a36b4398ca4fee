/**
 * How much load a fault scenario sends. CI runs a small N so the whole fault and security suite
 * stays within a few minutes on two cores; a full run sets EMQ_FAULTS_N (e.g. 10000) by hand.
 */

/** Logical requests per scenario when EMQ_FAULTS_N is not set. */
export const CI_REQUESTS = 1_000;

/** `EMQ_FAULTS_N`: logical requests per scenario, split between HTTP and SQS. Default 1000. */
export function requestsPerScenario(env: NodeJS.ProcessEnv = process.env): number {
  const text = env.EMQ_FAULTS_N?.trim();
  if (text === undefined || text === '') return CI_REQUESTS;
  const value = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(value) || value < 20) {
    throw new Error('EMQ_FAULTS_N must be a whole number of at least 20');
  }
  return value;
}

/** `EMQ_FAULTS_REPORT`: a file that receives one JSON line of figures per scenario. Default: none. */
export function reportFile(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const path = env.EMQ_FAULTS_REPORT?.trim();
  return path === undefined || path === '' ? undefined : path;
}
