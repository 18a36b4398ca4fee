/** How the functions of an ElastiCache or MemoryDB kind log in, and its check. */
import type { Ensure } from '../shared/resolved.js';

/**
 * How the functions authenticate to an ElastiCache cache: a password user whose password lives
 * in Secrets Manager, or an IAM-enabled user and 15-minute tokens signed with the functions'
 * role (`elasticache:Connect`). The deploy-time installer keeps a password either way.
 */
export type CacheAuth = 'password' | 'iam';
const CACHE_AUTHS: readonly CacheAuth[] = ['password', 'iam'];

export function checkCacheAuth(value: string, ensure: Ensure): void {
  ensure(
    CACHE_AUTHS.some((known) => known === value),
    `cacheAuth must be one of ${CACHE_AUTHS.join(', ')}; got '${value}'.`,
  );
}
