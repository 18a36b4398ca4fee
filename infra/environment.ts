/**
 * The EMQ_* variables (src/config.ts) that every function shares. The cache adds where Valkey is
 * (EMQ_URL, EMQ_CLUSTER, EMQ_EXECUTOR, EMQ_SECRET_ARN); a password is never among them.
 */
import type { ResolvedSettings } from './settings.js';

export function emqEnvironment(settings: ResolvedSettings): Record<string, string> {
  const { emq } = settings;
  return {
    EMQ_WIRE: emq.wire,
    EMQ_MAX_PAYLOAD_BYTES: String(emq.maxPayloadBytes),
    EMQ_DEDUPE_TTL_MS: String(emq.dedupeTtlMs),
    EMQ_COMMAND_TIMEOUT_MS: String(emq.commandTimeoutMs),
    EMQ_CONNECT_TIMEOUT_MS: String(emq.connectTimeoutMs),
    EMQ_ACK_REPLICAS: String(emq.ackReplicas),
    EMQ_ACK_TIMEOUT_MS: String(emq.ackTimeoutMs),
  };
}
