/**
 * Unknown context keys: a misspelt `-c shard=1` must fail the synth, naming the key the user
 * meant, rather than deploy the default. The CDK's own keys (feature flags `@aws-cdk/...`, the
 * CLI's `aws:cdk:...`, `cdk-...`) are not ours to judge.
 */
/** Keys the CDK toolkit itself puts into the context. */
function isToolkitKey(key: string): boolean {
  return (
    key.startsWith('@') ||
    key.includes(':') ||
    key.startsWith('cdk-') ||
    key === 'acknowledged-issue-numbers'
  );
}

/** One problem per key of `keys` that is neither in `known` nor the toolkit's. */
export function unknownKeys(keys: readonly string[], known: readonly string[]): string[] {
  return keys
    .filter((key) => !isToolkitKey(key) && !known.includes(key))
    .map((key) => `unknown context key '${key}': did you mean '${closestKey(key, known)}'?`);
}

/** The entry of `known` nearest to `key` (edit distance, case ignored). */
export function closestKey(key: string, known: readonly string[]): string {
  let best = known[0] ?? '';
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of known) {
    const distance = editDistance(key.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** Levenshtein distance, one row at a time. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min(
        (previous[j] ?? 0) + 1,
        (current[j - 1] ?? 0) + 1,
        (previous[j - 1] ?? 0) + cost,
      );
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
