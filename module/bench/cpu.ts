// Server CPU per job: one EMQ.ADMIT of 10 keyed admissions (an SQS batch of 10 records) against
// a raw pipeline of 10 single EMQ.ENQUEUE commands, on one real server loading the module.
//
//   make -s -C module host && npx tsx module/bench/cpu.ts [jobs each way, default 50000] [rounds, default 50]
//   (EMQ_VALKEY_BIN=<dir> picks the server, as for the tests)
//
// The server's own CPU (INFO cpu: used_cpu_user + used_cpu_sys, parsing and networking
// included) is read before and after each chunk; the two sides alternate in small chunks on one
// growing dataset, so that other load on the machine falls on both alike. A bare iovalkey
// client, one batch in flight.
//
// Instruction counts (deterministic, unlike CPU time on a shared machine): start the server
// yourself under callgrind and point the bench at it; each side then also runs alone once,
// counted between `callgrind_control` zero and dump:
//   valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file=/tmp/cg/cg.%p \
//     valkey-server --port 7104 --save '' --appendonly no --loadmodule module/build/emq.so &
//   EMQ_BENCH_PORT=7104 EMQ_BENCH_CALLGRIND=<its pid> EMQ_BENCH_CALLGRIND_DIR=/tmp/cg \
//     npx tsx module/bench/cpu.ts 50000 5
// EMQ_BENCH_ONLY=enqueue|admit runs one side alone (to profile or trace the server).
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Valkey } from 'iovalkey';
import { startStandalone } from '../../test/support/servers.js';

const PAYLOAD = JSON.stringify({
  sku: 'A-113',
  qty: 2,
  customer: 'c-0042',
  note: 'a typical small job payload: one hundred bytes!',
}); // the project bench's payload, 100 bytes
const QUEUE = 'bench-cpu';
const BATCH = 10;
const TTL = '3600000';
const jobs = Number(process.argv[2] ?? 50_000);
const runs = Number(process.argv[3] ?? 50);

let counter = 0;
function nextId(): string {
  counter += 1;
  return `JOB${counter.toString(36).padStart(11, '0')}`;
}
const digest = createHash('sha256').update(PAYLOAD).digest().subarray(0, 12).toString('base64url');

async function cpuSeconds(client: Valkey): Promise<[number, number]> {
  const text = await client.info('cpu');
  const field = (name: string) => Number(new RegExp(`^${name}:(\\S+)`, 'm').exec(text)?.[1]);
  return [field('used_cpu_user'), field('used_cpu_sys')];
}

async function enqueueRun(client: Valkey, batches: number): Promise<void> {
  for (let b = 0; b < batches; b++) {
    const pipeline = client.pipeline();
    for (let i = 0; i < BATCH; i++) {
      const id = nextId();
      pipeline.call(
        'EMQ.ENQUEUE',
        '2',
        `emq:{${QUEUE}}:job:${id}`,
        `emq:{${QUEUE}}:pending`,
        id,
        PAYLOAD,
      );
    }
    await pipeline.exec();
  }
}

async function admitRun(client: Valkey, batches: number): Promise<void> {
  const slots = [0, 1, 2, 3].map((s) => `emq:{${QUEUE}}:dedupe:${s}`);
  for (let b = 0; b < batches; b++) {
    const keys: string[] = [];
    const args: string[] = [];
    for (let i = 0; i < BATCH; i++) {
      const id = nextId();
      const h = createHash('sha256')
        .update(`sqs:${randomBytes(12).toString('hex')}`)
        .digest('base64url');
      keys.push(`emq:{${QUEUE}}:job:${id}`);
      args.push(`m${digest}${h.slice(0, 22)}`, PAYLOAD);
    }
    const reply = (await client.call(
      'EMQ.ADMIT',
      String(5 + BATCH),
      `emq:{${QUEUE}}:pending`,
      ...slots,
      ...keys,
      '1',
      TTL,
      ...args,
    )) as [number, string][];
    if (reply.length !== BATCH || reply.some(([status]) => status !== 1)) {
      throw new Error(`unexpected reply ${JSON.stringify(reply)}`);
    }
  }
}

/**
 * With EMQ_BENCH_PORT naming a server run under `valgrind --tool=callgrind --collect-atstart=no`
 * --callgrind-out-file=<dir>/cg.%p, EMQ_BENCH_CALLGRIND=<its pid> and EMQ_BENCH_CALLGRIND_DIR=<dir>: the instructions the server executes in each run, counted
 * by callgrind (user space only). Unlike CPU time, other work on the machine does not move it.
 */
function countInstructions(): (() => Promise<number>) | undefined {
  const pid = process.env.EMQ_BENCH_CALLGRIND;
  if (pid === undefined) return undefined;
  const control = (...args: string[]) =>
    new Promise<string>((resolve, reject) => {
      const child = spawn('callgrind_control', [...args, pid], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let out = '';
      child.stdout.on('data', (chunk) => {
        out += String(chunk);
      });
      child.on('close', (code) =>
        code === 0 ? resolve(out) : reject(new Error(`callgrind_control ${code}`)),
      );
    });
  const started = control('-z').then(() => control('-i', 'on'));
  return async () => {
    await started;
    await control('-i', 'off');
    await control('-d');
    // The dump just written: the newest file of --callgrind-out-file=<dir>/cg.<pid>.
    const dir = process.env.EMQ_BENCH_CALLGRIND_DIR ?? '.';
    const files = (await readdir(dir)).filter((name) => name.startsWith(`cg.${pid}.`));
    const newest = files
      .sort((a, b) => Number(a.split('.').pop()) - Number(b.split('.').pop()))
      .pop();
    const text = newest ? await readFile(join(dir, newest), 'utf8') : '';
    return Number(/^totals: (\d+)/m.exec(text)?.[1] ?? 0);
  };
}

const instructionCounts: Record<string, number[]> = {};

async function measure(client: Valkey, what: string, run: (batches: number) => Promise<void>) {
  await client.call('FLUSHALL', 'SYNC');
  await client.call('EMQ.WIRE.INSTALL');
  await client.call('CONFIG', 'RESETSTAT');
  const stop = countInstructions();
  const before = await cpuSeconds(client);
  const started = process.hrtime.bigint();
  await run(Math.ceil(jobs / BATCH));
  const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
  const after = await cpuSeconds(client);
  const userUs = (after[0] - before[0]) * 1e6;
  const sysUs = (after[1] - before[1]) * 1e6;
  const cpuUs = userUs + sysUs;
  const instructions = stop ? await stop() : 0;
  const stats = (await client.info('commandstats'))
    .split('\r\n')
    .filter((line) => line.startsWith('cmdstat_'))
    .map((line) => line.replace(/,rejected_calls=\d+,failed_calls=\d+/, ''))
    .filter((line) => !/cmdstat_(info|config|flushall|emq\.wire\.install)/.test(line));
  const counted = instructions ? `, ${Math.round(instructions / jobs)} instructions/job` : '';
  console.info(
    `${what.padEnd(28)} server CPU ${(cpuUs / jobs).toFixed(2)} µs/job (user ${(userUs / jobs).toFixed(2)}, sys ${(sysUs / jobs).toFixed(2)})${counted}  (${(cpuUs / 1e6).toFixed(3)} s for ${jobs} jobs, wall ${(wallMs / 1000).toFixed(1)} s)  ${stats.join(' ')}`,
  );
  if (instructions) {
    const counts = instructionCounts[what] ?? [];
    counts.push(instructions / jobs);
    instructionCounts[what] = counts;
  }
  return cpuUs / jobs;
}

// EMQ_BENCH_PORT: drive a server already running there (to profile it) instead of starting one.
const port = process.env.EMQ_BENCH_PORT;
const server = port
  ? undefined
  : await startStandalone({ module: true, extraArgs: ['--save', '', '--appendonly', 'no'] });
try {
  const client = server ? await server.client() : new Valkey({ port: Number(port) });
  console.log((await client.info('server')).match(/valkey_version:\S+/)?.[0]);
  await client.call('EMQ.WIRE.INSTALL');
  await enqueueRun(client, 500); // warm up both paths and the client
  await admitRun(client, 500);
  // Interleaved: `runs` rounds, each a chunk of each side (jobs / runs each), on one growing
  // dataset, so that load from other processes on the machine falls on both sides alike.
  await client.call('FLUSHALL', 'SYNC');
  await client.call('EMQ.WIRE.INSTALL');
  const chunk = Math.ceil(jobs / runs / BATCH);
  const total = { enqueue: { user: 0, sys: 0 }, admit: { user: 0, sys: 0 } };
  const ratios: number[] = [];
  for (let r = 0; r < runs; r++) {
    const spent: Record<string, number> = {};
    for (const [side, run] of [
      ['enqueue', enqueueRun],
      ['admit', admitRun],
    ] as const) {
      // EMQ_BENCH_ONLY=enqueue|admit: one side alone (to profile or trace the server).
      if (process.env.EMQ_BENCH_ONLY && process.env.EMQ_BENCH_ONLY !== side) continue;
      const before = await cpuSeconds(client);
      await run(client, chunk);
      const after = await cpuSeconds(client);
      total[side].user += after[0] - before[0];
      total[side].sys += after[1] - before[1];
      spent[side] = after[0] + after[1] - before[0] - before[1];
    }
    ratios.push((spent.admit as number) / (spent.enqueue as number));
  }
  const perJob = (side: 'enqueue' | 'admit') => {
    const { user, sys } = total[side];
    const n = chunk * BATCH * runs;
    return `${(((user + sys) * 1e6) / n).toFixed(2)} µs/job (user ${((user * 1e6) / n).toFixed(2)}, sys ${((sys * 1e6) / n).toFixed(2)})`;
  };
  const ratio = (total.admit.user + total.admit.sys) / (total.enqueue.user + total.enqueue.sys);
  const sorted = [...ratios].sort((a, b) => a - b);
  console.log(`${chunk * BATCH * runs} jobs each way, ${runs} interleaved rounds`);
  console.log(`pipeline ×10 EMQ.ENQUEUE: ${perJob('enqueue')}`);
  console.log(`EMQ.ADMIT ×10 (keyed):    ${perJob('admit')}`);
  console.log(
    `admit ÷ enqueue: ${ratio.toFixed(3)} overall; per round median ${sorted[Math.floor(runs / 2)]?.toFixed(3)}, range ${sorted[0]?.toFixed(3)}-${sorted.at(-1)?.toFixed(3)}`,
  );
  if (process.env.EMQ_BENCH_CALLGRIND) {
    for (const [what, run] of [
      ['pipeline ×10 EMQ.ENQUEUE', (n: number) => enqueueRun(client, n)],
      ['EMQ.ADMIT ×10 (keyed)', (n: number) => admitRun(client, n)],
    ] as const) {
      await measure(client, what, run);
    }
    for (const [what, counts] of Object.entries(instructionCounts)) {
      console.log(`instructions/job, ${what}: ${Math.round(counts[0] ?? 0)}`);
    }
  }
} finally {
  await server?.stop();
  if (!server) process.exit(0);
}
