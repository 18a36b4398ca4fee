// The program in-process with fake streams: what no child process can show (a terminal on
// stdin) and that usage errors never open a connection.
import { describe, expect, it } from 'vitest';
import type { Io } from '../../cli/io.js';
import { run } from '../../cli/program.js';
import { assertCallerIdTime, isJobId } from '../../src/index.js';

interface Captured {
  readonly io: Io;
  readonly out: () => string;
  readonly err: () => string;
  readonly stdinReads: () => number;
}

function capture(options: { terminal?: boolean } = {}): Captured {
  let out = '';
  let err = '';
  let reads = 0;
  return {
    io: {
      out: (text) => {
        out += typeof text === 'string' ? text : Buffer.from(text).toString();
      },
      err: (text) => {
        err += text;
      },
      readStdin: async () => {
        reads += 1;
        return Buffer.alloc(0);
      },
      stdinIsTerminal: options.terminal ?? false,
      // Port 1 on loopback: a command that did connect would fail as unavailable (exit 1).
      env: { EMQ_URL: 'redis://127.0.0.1:1' },
    },
    out: () => out,
    err: () => err,
    stdinReads: () => reads,
  };
}

describe('emq id', () => {
  it('mints strictly increasing, valid, current ids without a server', async () => {
    const { io, out } = capture();
    expect(await run(['id', '--count', '5'], io)).toBe(0);
    const ids = out().trim().split('\n');
    expect(ids).toHaveLength(5);
    expect(ids.every((id) => isJobId(id))).toBe(true);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(5);
    expect(() => assertCallerIdTime(ids[0] ?? '', 86_400_000, Date.now())).not.toThrow();
  });

  it('prints one JSON line with --json', async () => {
    const { io, out } = capture();
    expect(await run(['id', '--json'], io)).toBe(0);
    const printed = JSON.parse(out()) as { ids: string[] };
    expect(printed.ids).toHaveLength(1);
  });

  it('refuses a bad --count as usage', async () => {
    expect(await run(['id', '--count', '0'], capture().io)).toBe(2);
  });
});

describe('emq program', () => {
  it('refuses to wait for a payload on a terminal: exit 2, stdin untouched', async () => {
    const cli = capture({ terminal: true });
    expect(await run(['enqueue', 'q'], cli.io)).toBe(2);
    expect(cli.err()).toMatch(/^emq: EMQ_USAGE: No payload/);
    expect(cli.stdinReads()).toBe(0);
  });

  it('reads a payload of - from a terminal, as asked', async () => {
    const cli = capture({ terminal: true });
    await run(['enqueue', 'q', '-'], cli.io);
    expect(cli.stdinReads()).toBe(1);
  });

  it('checks the queue name before reading stdin', async () => {
    const cli = capture();
    expect(await run(['enqueue', 'a:b'], cli.io)).toBe(2);
    expect(cli.stdinReads()).toBe(0);
    expect(cli.err()).toMatch(/^emq: EMQ_INVALID_QUEUE: /);
  });

  it('prints a usage error as JSON on stdout with --json', async () => {
    const cli = capture();
    expect(await run(['get', 'q', 'nope', '--json'], cli.io)).toBe(2);
    expect(JSON.parse(cli.out())).toMatchObject({ error: { code: 'EMQ_INVALID_ID' } });
    expect(cli.err()).toBe('');
  });

  it('writes help to the given stdout and exits 0', async () => {
    const cli = capture();
    expect(await run(['pending', '--help'], cli.io)).toBe(0);
    expect(cli.out()).toContain('--limit <n>');
  });
});
