/**
 * `npm start`: the local stack. Runs as a bundle (dist/scripts/start/index.mjs), because the
 * core imports its Lua script as text, which only esbuild and vitest know how to do.
 */

import { packageDir } from '../infra/shared/package-dir.js';
import { parseOptions, USAGE, UsageError } from './local/options.js';
import { LocalStack } from './local/stack.js';

const EXIT_FAILED = 1;
const EXIT_USAGE = 2;

function say(text: string): void {
  process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
}

function complain(text: string): void {
  process.stderr.write(`npm start: ${text}\n`);
}

async function main(): Promise<void> {
  const dir = packageDir();
  let options: ReturnType<typeof parseOptions>;
  try {
    options = parseOptions(process.argv.slice(2), dir);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    complain(error.message);
    say(USAGE);
    process.exit(EXIT_USAGE);
  }
  if (options === 'help') {
    say(USAGE);
    return;
  }

  // The user's environment is read here and handed on; the functions get theirs from the stack.
  const stack = new LocalStack(options, dir, say, process.env);
  let stopping = false;
  const stop = async (code: number, why: string) => {
    if (stopping) {
      stack.kill();
      process.exit(code === 0 ? 130 : code);
    }
    stopping = true;
    const started = stack.started;
    if (started) say(why);
    await stack.stop();
    if (started) say('Stopped.');
    process.exit(code);
  };
  process.on('SIGINT', () => void stop(0, '\nStopping (Ctrl-C again to kill at once)...'));
  process.on('SIGTERM', () => void stop(0, 'Stopping...'));
  stack.onChildDied((child, how) => {
    complain(`${child.name} (pid ${child.pid}) stopped on its own (${how}); ${child.advice()}.`);
    void stop(EXIT_FAILED, 'Stopping the rest...');
  });

  try {
    await stack.start();
  } catch (error) {
    // A Ctrl-C during start-up makes start fail too; the stop under way finishes the job.
    if (stopping) return;
    complain(error instanceof Error ? error.message : String(error));
    await stop(EXIT_FAILED, 'Stopping what was started...');
  }
}

await main();
