// The `emq` bundle's command line itself: help on every command, the version, and exit code 2
// for every kind of usage error. No server: none of these may try to connect.
import { spawn } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, CLI, emq, STACK_FRAME } from '../support/cli.js';

beforeAll(() => {
  assertBuilt();
});

const COMMANDS = [
  ['enqueue'],
  ['get'],
  ['pending'],
  ['fence'],
  ['fence', 'check'],
  ['fence', 'install'],
  ['sqs'],
  ['id'],
  ['send'],
  ['dlq'],
];

/** The commands that talk to Valkey, and so take the connection flags. */
const CONNECTING = ['enqueue', 'get', 'pending', 'fence check', 'fence install', 'sqs'];

describe('emq usage', () => {
  it('prints help for every command on stdout with exit 0', async () => {
    for (const command of COMMANDS) {
      const run = await emq([...command, '--help']);
      expect(run.code, command.join(' ')).toBe(0);
      expect(run.stdout).toContain(`Usage: emq ${command.join(' ')}`);
      expect(run.stderr).toBe('');
    }
  });

  it('lists the connection flags in the help of every command that connects', async () => {
    for (const command of COMMANDS.filter((c) => CONNECTING.includes(c.join(' ')))) {
      const { stdout } = await emq([...command, '--help']);
      expect(stdout, command.join(' ')).toContain('--url <urls>');
      expect(stdout, command.join(' ')).toContain('--json');
    }
  });

  it('prints the program help, with the EMQ_* variables and exit codes, with exit 0', async () => {
    const run = await emq(['--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('EMQ_URL');
    expect(run.stdout).toContain('Exit codes: 0 ok, 1 refused or failed, 2 usage.');
    expect(run.stdout).toMatch(/EMQ_EXECUTOR +auto, native, function(, script)? \(default auto\)/);
  });

  it("prints the package's version with --version", async () => {
    const run = await emq(['--version']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  });

  it('exits 2 without a command', async () => {
    const run = await emq([]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('Usage: emq');
  });

  it('exits 2 for an unknown command', async () => {
    const run = await emq(['dequeue', 'q']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("unknown command 'dequeue'");
  });

  it('exits 2 for a missing argument', async () => {
    const run = await emq(['get', 'q']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("missing required argument 'id'");
  });

  it('exits 2 for an unknown option', async () => {
    const run = await emq(['pending', 'q', '--everything']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("unknown option '--everything'");
  });

  it('exits 2 for too many arguments', async () => {
    const run = await emq(['enqueue', 'q', 'a', 'b']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('too many arguments');
  });

  it('exits 2 for fence without check or install', async () => {
    const run = await emq(['fence']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('Usage: emq fence');
  });

  it('prints a usage error as one JSON line on stdout with --json, nothing on stderr', async () => {
    for (const args of [
      ['id', '--count', '0', '--json'],
      ['pending', 'q', '--everything', '--json'],
      ['get', 'q', '--json'],
      ['send', 'not-a-url', 'x', '--json'],
      ['pending', 'q', '--url', 'http://127.0.0.1:6379', '--json'],
    ]) {
      const run = await emq(args);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr, args.join(' ')).toBe('');
      const { error } = JSON.parse(run.stdout) as { error: Record<string, unknown> };
      expect(Object.keys(error).sort()).toEqual(['code', 'message', 'retryable']);
    }
  });

  it('exits 2 for a malformed queue URL, naming the argument and the shape of one', async () => {
    const run = await emq(['send', 'not-a-url', 'x']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /^emq: EMQ_USAGE: <queue-url> "not-a-url" is not an SQS queue URL .*expected https:\/\/sqs\.<region>\.amazonaws\.com\/<12-digit account id>\/<queue name>/,
    );
  });

  it('exits 2 for a malformed --url, naming --url and what it expects', async () => {
    const run = await emq(['pending', 'q', '--url', 'http://127.0.0.1:6379']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /^emq: EMQ_CONFIG: --url is invalid: expected .*redis:\/\/.*\(--url overrides EMQ_URL\)\./,
    );
  });

  it('exits 2 for a malformed EMQ_ setting, naming the variable', async () => {
    const run = await emq(['pending', 'q'], { env: { EMQ_CLUSTER: 'yes' } });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^emq: EMQ_CONFIG: EMQ_CLUSTER is invalid/);
  });

  it('ends quietly with exit 0 when the reader of its output goes away (| head)', async () => {
    const child = spawn(process.execPath, [CLI, '--help'], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const code = await new Promise((resolve) => child.once('close', resolve));
    expect(code).toBe(0);
    expect(stderr).not.toMatch(STACK_FRAME);
  });
});
