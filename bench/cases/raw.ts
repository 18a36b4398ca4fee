/**
 * Baselines with nothing of ours in the way: iovalkey pipelines of the bare write (no
 * validation, no dedupe record, no outcome mapping). What the library could at best reach.
 */
import type { Valkey } from 'iovalkey';
import source from '../../src/executors/enqueue-2.lua';
import { mintJobId } from '../../src/index.js';
import { type BenchCase, PAYLOAD } from '../case.js';

const QUEUE = 'bench-raw';
const PENDING = `emq:{${QUEUE}}:pending`;

export interface RawWrite {
  readonly kind: 'native' | 'script';
  /** The command and its leading arguments, before the two keys' values. */
  readonly head: (sha: string) => (string | number)[];
}

export async function scriptSha(client: Valkey): Promise<string> {
  return String(await client.script('LOAD', source));
}

function argsOf(kind: 'native' | 'script', sha: string): (string | Buffer | number)[] {
  const id = mintJobId();
  const head = kind === 'native' ? ['EMQ.ENQUEUE'] : ['EVALSHA', sha];
  return [...head, 2, `emq:{${QUEUE}}:job:${id}`, PENDING, id, PAYLOAD];
}

export function rawPipelineCase(
  client: Valkey,
  kind: 'native' | 'script',
  sha: string,
  size: number,
  inFlight = 1,
): BenchCase {
  const suffix = inFlight > 1 ? `.x${inFlight}` : '';
  return {
    id: `raw.pipe${size}.${kind}${suffix}`,
    label: `raw pipeline ×${size} ${kind === 'native' ? 'EMQ.ENQUEUE' : 'EVALSHA'}${inFlight > 1 ? `, ${inFlight} in flight` : ''}`,
    side: 'raw',
    jobsPerUnit: size,
    inFlight,
    topLevel: kind === 'native' ? ['emq.enqueue'] : ['evalsha'],
    round: async () => async () => {
      const pipeline = client.pipeline();
      for (let i = 0; i < size; i++) {
        const [command, ...args] = argsOf(kind, sha) as [string, ...(string | Buffer | number)[]];
        pipeline.call(command, ...args);
      }
      await pipeline.exec();
    },
  };
}

export function rawSingleCase(client: Valkey, kind: 'native' | 'script', sha: string): BenchCase {
  return {
    id: `raw.single.${kind}`,
    label: `raw single ${kind === 'native' ? 'EMQ.ENQUEUE' : 'EVALSHA'}, sequential`,
    side: 'raw',
    jobsPerUnit: 1,
    topLevel: kind === 'native' ? ['emq.enqueue'] : ['evalsha'],
    round: async () => () => {
      const [command, ...args] = argsOf(kind, sha) as [string, ...(string | Buffer | number)[]];
      return client.call(command, ...args);
    },
  };
}
