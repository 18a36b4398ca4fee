/**
 * The floor of an admission call: the writes a batch of first deliveries makes, sent as plain
 * pipelined commands with no script, module or check around them. Per batch of n: n row HSETs
 * (docs/wire.md, "The row at birth"), one ZADD of the n ids, one HSET of the n records and the
 * slot's `~` header into the slot a new record goes to (docs/wire.md), as the three families write
 * them. What an admission costs the server above this is the price of the call itself (its
 * arguments, its reads and checks).
 */
import { randomBytes } from 'node:crypto';
import type { Valkey } from 'iovalkey';
import { mintId } from '../../src/keyspace/ids.js';
import { type BenchCase, PAYLOAD, type ServerName } from '../case.js';

const QUEUE = 'bench-floor';
const PENDING = `emq:{${QUEUE}}:pending`;
const SLOT = `emq:{${QUEUE}}:dedupe:0`;
const TTL_MS = 3_600_000;
const SERVER_LABEL: Readonly<Record<ServerName, string>> = {
  module: 'server with the module',
  plain: 'plain server',
  listpack: 'plain server, rows as listpacks',
};

/** A record field and value of the sizes the families write: 22 characters, id:digest:expiry. */
function recordOf(id: string, expiry: number): [string, string] {
  const field = randomBytes(17).toString('base64url').slice(0, 22);
  const digest = randomBytes(12).toString('base64url');
  return [field, `${id}:${digest}:${expiry}`];
}

export function floorCase(
  client: Valkey,
  server: ServerName,
  size: number,
  inFlight: number,
): BenchCase {
  return {
    id: `floor.pipe${size}.${server}.x${inFlight}`,
    label: `floor: pipelined HSET ×${size} + ZADD + record HSET (${SERVER_LABEL[server]}), ${inFlight} in flight`,
    side: 'raw',
    jobsPerUnit: size,
    inFlight,
    server,
    topLevel: ['hset', 'zadd'],
    round: async () => async () => {
      const expiry = Date.now() + TTL_MS;
      const pipeline = client.pipeline();
      const members: string[] = [];
      const records: string[] = [];
      for (let i = 0; i < size; i++) {
        const id = mintId();
        pipeline.hset(
          `emq:{${QUEUE}}:job:${id}`,
          'state',
          'pending',
          'attempts',
          '0',
          'payload',
          PAYLOAD,
        );
        members.push('0', id);
        records.push(...recordOf(id, expiry));
      }
      pipeline.zadd(PENDING, ...members);
      pipeline.hset(SLOT, ...records, '~', String(expiry));
      await pipeline.exec();
    },
  };
}
