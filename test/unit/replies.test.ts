// A write's replies are settled once, by the server or by the command timeout. A reply read
// after the deadline, while the connection's timer had not yet run (a process starved of CPU),
// settles the write as the timeout would have: a late answer is never taken for a success.
import { describe, expect, it } from 'vitest';
import { Deadlines, Write } from '../../src/connection/replies.js';

describe('Write', () => {
  it('takes replies that arrive before the deadline', async () => {
    const settled = new Promise<unknown[]>((resolve) => {
      const write = new Write(2, resolve);
      new Deadlines().add(write, 60_000);
      write.settle(0, 'OK');
      write.settle(1, 1);
    });
    expect(await settled).toEqual(['OK', 1]);
  });

  it('answers a reply read after the deadline as the timeout, keeping the ones read before', async () => {
    const settled = new Promise<unknown[]>((resolve) => {
      const write = new Write(2, resolve);
      new Deadlines().add(write, 60_000);
      write.settle(0, 'OK');
      // The timer has not run: the deadline passed while nothing read the clock.
      write.deadline = performance.now() - 1;
      write.settle(1, 1);
    });
    const replies = await settled;
    expect(replies[0]).toBe('OK');
    expect(replies[1]).toBeInstanceOf(Error);
    expect((replies[1] as Error).message).toBe('Command timed out');
  });

  it('has no deadline without a timeout', async () => {
    const settled = new Promise<unknown[]>((resolve) => {
      const write = new Write(1, resolve);
      write.settle(0, 'OK');
    });
    expect(await settled).toEqual(['OK']);
  });
});
