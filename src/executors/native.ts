import { Command, type Pipeline } from 'iovalkey';
import type { EnqueueCall, Executor } from './executor.js';

/**
 * iovalkey does not know EMQ.ENQUEUE's key positions and would send it to a random cluster
 * node; naming the keys here lets the cluster client and pipelines route it by its slot.
 */
class EnqueueCommand extends Command {
  private readonly routeKeys: string[];

  constructor(call: EnqueueCall) {
    super('EMQ.ENQUEUE', ['2', call.jobKey, call.pendingKey, call.id, call.payload]);
    this.routeKeys = [call.jobKey, call.pendingKey];
  }

  override getKeys(): string[] {
    return this.routeKeys;
  }
}

/** The native executor: the module's EMQ.ENQUEUE, with its per-write fence and paused guard. */
export const nativeExecutor: Executor = {
  kind: 'native',
  enqueue(pipeline: Pipeline, call: EnqueueCall): void {
    pipeline.sendCommand(new EnqueueCommand(call));
  },
};
