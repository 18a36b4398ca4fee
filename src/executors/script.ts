import type { Cluster, Pipeline, Valkey } from 'iovalkey';
import source from './enqueue-2.lua';
import type { EnqueueCall, Executor } from './executor.js';

const COMMAND = 'emqEnqueue2';

/** The method defineCommand adds to every pipeline of the client. */
type ScriptPipeline = Record<typeof COMMAND, (...args: Array<string | Buffer>) => unknown>;

/**
 * The script executor, for servers without the module (ElastiCache). iovalkey sends the
 * script with EVAL once per connection, EVALSHA after, and resends on NOSCRIPT.
 */
export function createScriptExecutor(client: Valkey | Cluster): Executor {
  client.defineCommand(COMMAND, { numberOfKeys: 2, lua: source });
  return {
    kind: 'script',
    enqueue(pipeline: Pipeline, call: EnqueueCall): void {
      (pipeline as unknown as ScriptPipeline)[COMMAND](
        call.jobKey,
        call.pendingKey,
        call.id,
        call.payload,
      );
    },
  };
}
