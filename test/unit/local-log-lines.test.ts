import { describe, expect, it } from 'vitest';
import { readableLine } from '../../scripts/local/log-lines.js';

const emf = {
  _aws: {
    Timestamp: 0,
    CloudWatchMetrics: [
      {
        Namespace: 'EchoMQ/Lambda',
        Dimensions: [['Face', 'Outcome']],
        Metrics: [{ Name: 'Requests', Unit: 'Count' }],
      },
    ],
  },
  Face: 'http',
  Outcome: 'enqueued',
  Requests: 1,
};

describe('readableLine', () => {
  it('prints a log line that carries metrics without its metric fields', () => {
    const line = JSON.stringify({
      level: 'info',
      message: 'http request',
      time: '2026-11-30T12:00:00.123Z',
      queue: 'orders',
      ...emf,
    });
    expect(readableLine(line)).toBe('12:00:00.123 info  http request queue=orders');
  });

  it('leaves out a record that is only metrics', () => {
    expect(readableLine(JSON.stringify(emf))).toBeUndefined();
  });

  it('passes a line that is not JSON through unchanged', () => {
    expect(readableLine('plain text')).toBe('plain text');
  });
});
