import { Command, type Pipeline } from 'iovalkey';
import type { EnqueueCall, Executor } from './executor.js';

const CRLF = 0x0d0a;

/**
 * iovalkey does not know EMQ.ENQUEUE's key positions and would send it to a random cluster
 * node; naming the keys here lets the cluster client and pipelines route it by its slot.
 */
class EnqueueCommand extends Command {
  private readonly call: EnqueueCall;

  constructor(call: EnqueueCall) {
    super('EMQ.ENQUEUE', ['2', call.jobKey, call.pendingKey, call.id, call.payload]);
    this.call = call;
  }

  override getKeys(): string[] {
    return [this.call.jobKey, this.call.pendingKey];
  }

  /**
   * The command in RESP, as one buffer. iovalkey's own encoder handles a Buffer argument by
   * collecting pieces and joining them, which costs more than the write itself on the hot path.
   */
  override toWritable(): Buffer {
    const { jobKey, pendingKey, id, payload } = this.call;
    const head = `*6\r\n$11\r\nEMQ.ENQUEUE\r\n$1\r\n2\r\n$${Buffer.byteLength(jobKey)}\r\n${jobKey}\r\n$${Buffer.byteLength(pendingKey)}\r\n${pendingKey}\r\n$${Buffer.byteLength(id)}\r\n${id}\r\n$${payload.length}\r\n`;
    const headBytes = Buffer.byteLength(head);
    const out = Buffer.allocUnsafe(headBytes + payload.length + 2);
    out.write(head, 0, headBytes, 'utf8');
    payload.copy(out, headBytes);
    out.writeUInt16BE(CRLF, headBytes + payload.length);
    return out;
  }
}

/** The EMQ.ENQUEUE command of one call, for callers that send commands themselves (rounds.ts). */
export function enqueueCommand(call: EnqueueCall): Command {
  return new EnqueueCommand(call);
}

/** The native executor: the module's EMQ.ENQUEUE, with its per-write fence and paused guard. */
export const nativeExecutor: Executor = {
  kind: 'native',
  enqueue(pipeline: Pipeline, call: EnqueueCall): void {
    pipeline.sendCommand(enqueueCommand(call));
  },
};
