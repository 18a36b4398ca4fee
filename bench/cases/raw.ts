/**
 * Baselines with nothing of ours in the way: iovalkey pipelines of the bare write (no
 * validation, no idempotency record, no outcome mapping). What the library could at best reach.
 * `EMQ.ENQUEUE` runs on the module's server, `FCALL emq_enqueue` on the plain one, where the
 * function family runs.
 */
import type { Valkey } from 'iovalkey';
import { mintId } from '../../src/keyspace/ids.js';
import { type BenchCase, PAYLOAD, type ServerName } from '../case.js';

const QUEUE = 'bench-raw';
const PENDING = `emq:{${QUEUE}}:pending`;

export interface RawWrite {
  readonly kind: 'native' | 'function';
  /** The command and its leading arguments, before the two keys' values. */
  readonly head: () => (string | number)[];
}

const serverOf = (kind: RawWrite['kind']): ServerName => (kind === 'native' ? 'module' : 'plain');

function argsOf(kind: 'native' | 'function'): (string | Buffer | number)[] {
  const id = mintId();
  const head = kind === 'native' ? ['EMQ.ENQUEUE'] : ['FCALL', 'emq_enqueue'];
  return [...head, 2, `emq:{${QUEUE}}:job:${id}`, PENDING, id, PAYLOAD];
}

export function rawPipelineCase(
  client: Valkey,
  kind: 'native' | 'function',
  size: number,
  inFlight = 1,
): BenchCase {
  const suffix = inFlight > 1 ? `.x${inFlight}` : '';
  return {
    id: `raw.pipe${size}.${kind}${suffix}`,
    label: `raw pipeline ×${size} ${kind === 'native' ? 'EMQ.ENQUEUE' : 'FCALL emq_enqueue'}${inFlight > 1 ? `, ${inFlight} in flight` : ''}`,
    side: 'raw',
    jobsPerUnit: size,
    inFlight,
    server: serverOf(kind),
    topLevel: kind === 'native' ? ['emq.enqueue'] : ['fcall'],
    round: async () => async () => {
      const pipeline = client.pipeline();
      for (let i = 0; i < size; i++) {
        const [command, ...args] = argsOf(kind) as [string, ...(string | Buffer | number)[]];
        pipeline.call(command, ...args);
      }
      await pipeline.exec();
    },
  };
}

export function rawSingleCase(client: Valkey, kind: 'native' | 'function'): BenchCase {
  return {
    id: `raw.single.${kind}`,
    label: `raw single ${kind === 'native' ? 'EMQ.ENQUEUE' : 'FCALL emq_enqueue'}, sequential`,
    side: 'raw',
    jobsPerUnit: 1,
    server: serverOf(kind),
    topLevel: kind === 'native' ? ['emq.enqueue'] : ['fcall'],
    round: async () => () => {
      const [command, ...args] = argsOf(kind) as [string, ...(string | Buffer | number)[]];
      return client.call(command, ...args);
    },
  };
}
