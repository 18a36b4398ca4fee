import { randomBytes } from 'node:crypto';

// The queue-name rule of docs/wire.md "Keys", so a helper never hands a test a name the host
// refuses.
const QUEUE_NAME = /^[A-Za-z0-9._-]{1,64}$/;
let sequence = 0;

/** A queue name no other call returns (pid, counter and random bits), so tests never share a queue. */
export function randomQueue(prefix = 't'): string {
  sequence += 1;
  const name = `${prefix}-${process.pid.toString(36)}-${sequence.toString(36)}-${randomBytes(4).toString('hex')}`;
  if (!QUEUE_NAME.test(name)) {
    throw new Error(
      `randomQueue(${JSON.stringify(prefix)}) would make ${JSON.stringify(name)}, not 1-64 of [A-Za-z0-9._-]`,
    );
  }
  return name;
}
