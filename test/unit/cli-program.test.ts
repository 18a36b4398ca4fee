// The program in-process with fake streams: what no child process can show (a terminal on
// stdin) and that usage errors never open a connection.
import { describe, expect, it } from 'vitest';
import type { Io } from '../../cli/io.js';
import { run } from '../../cli/program.js';
import { isJobId, jobIdAt } from '../../src/keyspace/ids.js';
import { assertCallerIdTime } from '../../src/keyspace/keyspace.js';

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

describe('emq send and emq dlq', () => {
  it('refuse a malformed queue URL as usage before stdin or AWS: exit 2, naming the argument', async () => {
    for (const url of [
      'not-a-url',
      'ftp://sqs.us-east-1.amazonaws.com/123456789012/q',
      'https://sqs.us-east-1.amazonaws.com/q',
    ]) {
      for (const command of ['send', 'dlq']) {
        const cli = capture();
        expect(await run([command, url, '--json'], cli.io), `${command} ${url}`).toBe(2);
        const { error } = JSON.parse(cli.out()) as { error: { code: string; message: string } };
        expect(error.code).toBe('EMQ_USAGE');
        expect(error.message).toContain(
          `<queue-url> ${JSON.stringify(url)} is not an SQS queue URL`,
        );
        expect(error.message).toContain(
          'https://sqs.<region>.amazonaws.com/<12-digit account id>/<queue name>',
        );
        expect(cli.stdinReads()).toBe(0);
      }
    }
  });

  it('refuses a FIFO queue without --group before reading stdin', async () => {
    const cli = capture();
    const url = 'https://sqs.eu-west-1.amazonaws.com/123456789012/orders.fifo';
    expect(await run(['send', url], cli.io)).toBe(2);
    expect(cli.err()).toMatch(/^emq: EMQ_USAGE: <queue-url> names a FIFO queue .*--group/);
    expect(cli.stdinReads()).toBe(0);
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

  it('prints every usage error of the command line as JSON on stdout with --json', async () => {
    const cases: [string[], RegExp][] = [
      [
        ['id', '--count', '0', '--json'],
        /^Option '--count <n>' argument '0' is invalid\. Expected/,
      ],
      [['pending', 'q', '--everything', '--json'], /^Unknown option '--everything'/],
      [['get', 'q', '--json'], /^Missing required argument 'id'/],
      [['enqueue', 'q', 'a', 'b', '--json'], /^Too many arguments/],
      [['dequeue', 'q', '--json'], /^Unknown command 'dequeue'/],
      [['pending', 'q', '--json', '--limit'], /^Option '--limit <n>' argument missing/],
      [
        ['enqueue', 'q', 'x', '--id', 'JOB0KHTOWnGLuC', '--idempotency-key', 'k', '--json'],
        /cannot be used with option '--idempotency-key <key>'/,
      ],
    ];
    for (const [args, message] of cases) {
      const cli = capture();
      expect(await run(args, cli.io), args.join(' ')).toBe(2);
      const printed = JSON.parse(cli.out()) as { error: Record<string, unknown> };
      expect(Object.keys(printed.error).sort()).toEqual(['code', 'message', 'retryable']);
      expect(printed.error, args.join(' ')).toMatchObject({ code: 'EMQ_USAGE', retryable: false });
      expect(printed.error.message, args.join(' ')).toMatch(message);
      expect(cli.err(), args.join(' ')).toBe('');
    }
  });

  it('keeps text usage errors on stderr without --json, and reads --json after -- as data', async () => {
    const text = capture();
    expect(await run(['id', '--count', '0'], text.io)).toBe(2);
    expect(text.out()).toBe('');
    expect(text.err()).toContain("error: option '--count <n>' argument '0' is invalid.");
    const operand = capture({ terminal: true });
    expect(await run(['enqueue', 'a:b', '--', '--json'], operand.io)).toBe(2);
    expect(operand.out()).toBe('');
    expect(operand.err()).toMatch(/^emq: EMQ_INVALID_QUEUE: /);
  });

  it('names the flag the user gave, not the variable it overrides', async () => {
    const cli = capture();
    expect(await run(['pending', 'q', '--url', 'http://127.0.0.1:6379', '--json'], cli.io)).toBe(2);
    const { error } = JSON.parse(cli.out()) as { error: { code: string; message: string } };
    expect(error.code).toBe('EMQ_CONFIG');
    expect(error.message).toMatch(
      /^--url is invalid: expected .*redis:\/\/.*--url overrides EMQ_URL/,
    );
    const wire = capture();
    expect(await run(['fence', 'check', '--wire', 'two words'], wire.io)).toBe(2);
    expect(wire.err()).toMatch(/^emq: EMQ_CONFIG: --wire is invalid: expected /);
  });

  it('names the argument or flag whose value the core refused: exit 2, before connecting', async () => {
    const twoDaysAgo = jobIdAt(Date.now() - 2 * 86_400_000, 0);
    const cases: [string[], RegExp][] = [
      [['enqueue', 'a:b', 'x'], /^<queue>: Invalid queue name "a:b"/],
      [['enqueue', 'q', 'x', '--id', 'job-1'], /^--id: Invalid job id "job-1"/],
      [['enqueue', 'q', 'x', '--id', twoDaysAgo], /^--id: Job id JOB\w+ was minted at /],
      [['enqueue', 'q', 'x', '--idempotency-key', 'has space'], /^--idempotency-key: Invalid/],
      [['get', 'q', 'nope'], /^<id>: Invalid job id "nope"/],
      [['pending', '..'], /^<queue>: Invalid queue name/],
    ];
    for (const [args, message] of cases) {
      const cli = capture();
      // EMQ_URL is port 1: a command that did connect would exit 1.
      expect(await run([...args, '--json'], cli.io), args.join(' ')).toBe(2);
      const { error } = JSON.parse(cli.out()) as { error: { message: string } };
      expect(error.message, args.join(' ')).toMatch(message);
    }
  });

  it('writes help to the given stdout and exits 0', async () => {
    const cli = capture();
    expect(await run(['pending', '--help'], cli.io)).toBe(0);
    expect(cli.out()).toContain('--limit <n>');
  });
});
