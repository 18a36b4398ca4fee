/**
 * `npm run bench`: the project's scoreboard. Starts its own two Valkeys (one with the module,
 * for the native family, the raw EMQ.ENQUEUE baselines and BullMQ; one without, for the
 * function and script families, as ElastiCache runs them), measures every case in rounds,
 * counts round trips, measures the bundles and cold starts, and writes
 * bench/results/latest.json, bench/chart.svg and the table in bench/README.md.
 *
 * Options: `--rounds N` (default 7), `--round-ms N` (default 400), `--imports N` fresh
 * processes per import and cold-start figure (default 9), `--only a,b` case ids (no files
 * are written), `--no-pin` (placement left to the scheduler, see pin.ts). The faces' log lines
 * go to stdout, a pipe (log-pipe.ts); the report to stderr.
 */
import { readFileSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { cpus, loadavg, totalmem } from 'node:os';
import { resolve } from 'node:path';
import { Queue } from 'bullmq';
import { Valkey } from 'iovalkey';
import { install } from '../src/connection/fence.js';
import { type Connection, connect } from '../src/index.js';
import { measureBundles } from './bundles.js';
import { CAPACITY_IN_FLIGHT, CAPACITY_SIZES } from './capacity.js';
import { type BenchCase, LISTPACK_VALUE, type ServerName } from './case.js';
import { bullAddCase, bullBulkCase } from './cases/bullmq.js';
import { closeContainer, configureFaces, httpBatchCase, httpCase, sqsCase } from './cases/faces.js';
import { floorCase } from './cases/floor.js';
import { enqueueCase, enqueueManyCase, enqueueManyKeyedCase } from './cases/library.js';
import { rawPipelineCase, rawSingleCase } from './cases/raw.js';
import { chartSvg } from './chart.js';
import { measureColdStarts } from './cold-start.js';
import { runWithPipedStdout, stdoutIsPiped } from './log-pipe.js';
import { pinProcesses } from './pin.js';
import {
  bundleTable,
  capacityTable,
  casesTable,
  coldStartTable,
  commandTable,
  connectTable,
  fullReport,
  listpackTable,
  type Machine,
  machineLine,
  roundTripTable,
  verdictTable,
} from './report.js';
import { countConnects, countRoundTrips } from './round-trips.js';
import { runCases } from './runner.js';
import { startServer } from './server.js';
import { verdicts } from './targets.js';

interface Options {
  readonly rounds: number;
  readonly roundMs: number;
  readonly imports: number;
  readonly only: readonly string[] | undefined;
  readonly pin: boolean;
}

function options(argv: readonly string[]): Options {
  const value = (name: string): string | undefined => {
    const at = argv.indexOf(name);
    return at === -1 ? undefined : argv[at + 1];
  };
  return {
    rounds: Number(value('--rounds') ?? 7),
    roundMs: Number(value('--round-ms') ?? 400),
    imports: Number(value('--imports') ?? 9),
    only: value('--only')?.split(','),
    pin: !argv.includes('--no-pin'),
  };
}

/** The cases whose server commands the README lists: the table's rows, each family's SQS ×10. */
const COMMAND_CASES: readonly string[] = [
  'sqs.batch10.native',
  'sqs.batch10.function',
  'sqs.batch10.script',
  'raw.pipe10.native',
  'bullmq.bulk10',
  'http.post.native',
  'raw.single.native',
  'lib.many100.native',
  'bullmq.bulk100',
];

const README_START = '<!-- bench:table:start -->';
const README_END = '<!-- bench:table:end -->';

const root = process.cwd();
const opts = options(process.argv.slice(2));
const progress = (line: string) => process.stderr.write(`bench: ${line}\n`);
const loadAtStart = loadavg()[0] ?? 0;
const print = (text: string) => process.stderr.write(`${text}\n`);

if (!stdoutIsPiped(process.argv)) process.exit(await runWithPipedStdout(progress));

const placement = pinProcesses(opts.pin);
const server = await startServer(root);
// The function and script families run where AWS runs them: on a server without the module.
const plain = await startServer(root, { module: false });
// The plain server again with rows as listpacks: what the stack's parameter group would set.
const listpack = await startServer(root, {
  module: false,
  config: ['--hash-max-listpack-value', String(LISTPACK_VALUE)],
});
placement.server(server.pid);
placement.server(plain.pid);
placement.server(listpack.pid);
const admins: Record<ServerName, Valkey> = {
  module: new Valkey({ host: '127.0.0.1', port: server.port }),
  plain: new Valkey({ host: '127.0.0.1', port: plain.port }),
  listpack: new Valkey({ host: '127.0.0.1', port: listpack.port }),
};
const raw = new Valkey({ host: '127.0.0.1', port: server.port });
const rawPlain = new Valkey({ host: '127.0.0.1', port: plain.port });
const rawListpack = new Valkey({ host: '127.0.0.1', port: listpack.port });
const connections: Connection[] = [];
let bull: Queue | undefined;
let bullClient: Valkey | undefined;
try {
  const installers = {
    module: await connect({ urls: [server.url], checkFence: false, family: 'native' }),
    plain: await connect({ urls: [plain.url], checkFence: false, family: 'function' }),
    listpack: await connect({ urls: [listpack.url], checkFence: false, family: 'function' }),
  };
  connections.push(installers.module, installers.plain, installers.listpack);
  // Both servers start every case-round empty, with the fence and the library installed
  // (FLUSHALL keeps functions and loaded scripts, install puts the fence back).
  const reset = async (): Promise<void> => {
    await Promise.all([
      admins.module.call('FLUSHALL', 'SYNC'),
      admins.plain.call('FLUSHALL', 'SYNC'),
      admins.listpack.call('FLUSHALL', 'SYNC'),
    ]);
    await Promise.all([
      install(installers.module),
      install(installers.plain),
      install(installers.listpack),
    ]);
  };
  await reset();
  const native = await connect({ urls: [server.url], family: 'native' });
  const fn = await connect({ urls: [plain.url], family: 'function' });
  // Connecting with the script family loads the script (SCRIPT LOAD) where it is missing.
  const script = await connect({ urls: [plain.url], family: 'script' });
  connections.push(native, fn, script);
  const families = [native, fn, script] as const;
  // BullMQ 6 takes ioredis as an optional peer, not installed here; iovalkey is the ioredis
  // fork BullMQ's adapter drives unchanged (the same client code on both sides of the ratio).
  bullClient = new Valkey({ host: '127.0.0.1', port: server.port, maxRetriesPerRequest: null });
  const bullmq = new Queue('bench-bullmq', { connection: bullClient });
  bull = bullmq;
  await bullmq.waitUntilReady();
  configureFaces({ module: server.url, plain: plain.url, listpack: listpack.url });

  const kinds = ['native', 'function', 'script'] as const;
  // Capacity first (capacity.ts): each family, its floor and BullMQ, 8 batches in flight.
  const capacity = CAPACITY_SIZES.flatMap((size) => [
    ...kinds.map((kind) => sqsCase(kind, size, CAPACITY_IN_FLIGHT)),
    floorCase(raw, 'module', size, CAPACITY_IN_FLIGHT),
    floorCase(rawPlain, 'plain', size, CAPACITY_IN_FLIGHT),
    bullBulkCase(bullmq, size, CAPACITY_IN_FLIGHT),
    // Rows as listpacks (hash-max-listpack-value raised): the function family and its floor.
    sqsCase('function', size, CAPACITY_IN_FLIGHT, undefined, 'listpack'),
    floorCase(rawListpack, 'listpack', size, CAPACITY_IN_FLIGHT),
  ]);
  const all: BenchCase[] = [
    ...capacity,
    ...families.map((c) => enqueueCase(c)),
    ...kinds.map((kind) => httpCase(kind)),
    rawSingleCase(raw, 'native'),
    rawSingleCase(rawPlain, 'function'),
    bullAddCase(bull),
    ...families.map((c) => enqueueManyCase(c, 10)),
    ...families.map((c) => enqueueManyKeyedCase(c, 10)),
    ...kinds.map((kind) => sqsCase(kind, 10)),
    rawPipelineCase(raw, 'native', 10),
    rawPipelineCase(rawPlain, 'function', 10),
    bullBulkCase(bull, 10),
    rawPipelineCase(raw, 'native', 10, 8),
    ...families.map((c) => enqueueManyCase(c, 100)),
    rawPipelineCase(raw, 'native', 100),
    bullBulkCase(bull, 100),
    httpBatchCase('native', 100),
    httpBatchCase('native', 1000),
    bullBulkCase(bull, 1000),
  ];
  const cases = opts.only === undefined ? all : all.filter((c) => opts.only?.includes(c.id));
  progress(`${cases.length} cases, ${opts.rounds} rounds of ~${opts.roundMs} ms each`);
  const runOptions = { rounds: opts.rounds, roundMs: opts.roundMs, reset, admins, progress };
  const results = await runCases(cases, runOptions);
  const ackCases = [
    sqsCase('native', 10, 1, 0),
    sqsCase('native', 10, 1, 1),
    sqsCase('native', 10, 8, 0),
    sqsCase('native', 10, 8, 1),
  ].filter((c) => opts.only === undefined || opts.only.includes(c.id));
  if (ackCases.length > 0) {
    // EMQ_ACK_REPLICAS=1 needs a replica: attached for these cases alone, so the others
    // measure the server as it was; 0 and 1 take turns with it attached.
    await closeContainer();
    progress('attaching a replica for the EMQ_ACK_REPLICAS cases');
    const replica = await startServer(root, { replicaOf: server.port });
    placement.server(replica.pid);
    try {
      results.push(...(await runCases(ackCases, runOptions)));
    } finally {
      await closeContainer();
      await replica.stop();
    }
  }
  await closeContainer();

  if (opts.only !== undefined) {
    print(capacityTable(results));
    print('');
    print(listpackTable(results));
    print('');
    print(casesTable(results));
    print('');
    print(commandTable(results));
  } else {
    progress('counting round trips');
    const roundTrips = await countRoundTrips({
      module: server.port,
      plain: plain.port,
      listpack: listpack.port,
    });
    progress('counting the commands of a fresh connect');
    const connects = await countConnects(
      { module: server.port, plain: plain.port, listpack: listpack.port },
      admins,
    );
    progress('measuring bundles');
    const bundles = await measureBundles(root, opts.imports);
    progress('measuring cold starts');
    await reset();
    const coldStarts = await measureColdStarts(root, server, opts.imports);
    const info = await admins.module.info('server');
    const bullmqVersion = (
      JSON.parse(readFileSync(resolve(root, 'node_modules/bullmq/package.json'), 'utf8')) as {
        version: string;
      }
    ).version;
    const machine: Machine = {
      cpu: cpus()[0]?.model.trim() ?? 'unknown CPU',
      cores: cpus().length,
      memoryGb: Math.round(totalmem() / 2 ** 30),
      node: process.versions.node,
      valkey:
        /valkey_version:(\S+)/.exec(info)?.[1] ?? /redis_version:(\S+)/.exec(info)?.[1] ?? '?',
      bullmq: bullmqVersion,
      load: [loadAtStart, loadavg()[0] ?? 0],
      date: `${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC`,
      rounds: opts.rounds,
      placement: placement.described,
    };
    const verdictList = verdicts({ cases: results, roundTrips, connects, bundles, coldStarts });
    print(
      fullReport({
        machine,
        cases: results,
        verdicts: verdictList,
        roundTrips,
        connects,
        bundles,
        coldStarts,
      }),
    );

    await mkdir(resolve(root, 'bench/results'), { recursive: true });
    const json = JSON.stringify(
      { machine, cases: results, verdicts: verdictList, roundTrips, connects, bundles, coldStarts },
      null,
      2,
    );
    await writeFile(resolve(root, 'bench/results/latest.json'), json);
    await writeFile(
      resolve(root, 'bench/chart.svg'),
      chartSvg(results, verdictList, machineLine(machine)),
    );
    await updateReadme(
      [
        `Measured ${machineLine(machine)}`,
        '',
        capacityTable(results),
        '',
        listpackTable(results),
        '',
        casesTable(results),
        '',
        verdictTable(verdictList),
        '',
        roundTripTable(roundTrips),
        '',
        connectTable(connects),
        '',
        bundleTable(bundles),
        '',
        coldStartTable(coldStarts),
        '',
        'Where the server spends it (INFO commandstats: calls per unit and µs per call of every command a case caused, nested ones included):',
        '',
        commandTable(results.filter((c) => COMMAND_CASES.includes(c.id))),
      ].join('\n'),
    );
    progress('wrote bench/results/latest.json, bench/chart.svg, bench/README.md');
  }
} finally {
  await bull?.close();
  bullClient?.disconnect();
  await Promise.all(connections.map((connection) => connection.close()));
  for (const client of [admins.module, admins.plain, admins.listpack, raw, rawPlain, rawListpack])
    client.disconnect();
  await Promise.all([server.stop(), plain.stop(), listpack.stop()]);
}

/** Replaces the generated part of bench/README.md; the prose around it stays as written. */
async function updateReadme(table: string): Promise<void> {
  const path = resolve(root, 'bench/README.md');
  const current = await readFile(path, 'utf8').catch(() => `${README_START}\n${README_END}\n`);
  const start = current.indexOf(README_START);
  const end = current.indexOf(README_END);
  if (start === -1 || end === -1) {
    progress('bench/README.md has no table markers; left as is');
    return;
  }
  const next = `${current.slice(0, start + README_START.length)}\n${table}\n${current.slice(end)}`;
  await writeFile(path, next);
}
