/**
 * What every primary must hold before a connection serves (docs/wire.md, "The fence";
 * docs/reliability.md, "Acknowledgements"), judged and written node by node: the wire identity
 * `{emq}:version`, the `emq` library at this host's version (as a function library, or as the
 * script of the script family), a module built for the same identity where one is loaded, and a
 * memory policy that evicts nothing an admission writes. The nodes are read by node-reading.ts.
 */
import { LIBRARY_SOURCE, LIBRARY_VERSION, SCRIPT_SOURCE } from '../families/library.js';
import { wireKey } from '../keyspace/keyspace.js';
import { classifyFailure, refusedRight } from '../outcomes/outcome-rules.js';
import { ConfigError, type EmqError, FenceError } from '../outcomes/outcomes.js';
import { type FenceReading, type FenceTarget, readNodes } from './node-reading.js';

/**
 * Throws unless every primary can serve this host: a retryable FenceError naming the first node
 * whose identity or library differs; a ConfigError for a memory policy that evicts job rows
 * (`allkeys-*`). `noeviction` and `volatile-*` serve: nothing an admission writes has a TTL.
 */
export function checkNodes(
  readings: readonly FenceReading[],
  wire: string,
  warn: (event: string, fields: Readonly<Record<string, string>>) => void,
): void {
  const bad = readings.find((reading) => !reading.ok);
  if (bad !== undefined) throw mismatch(bad, wire);
  for (const reading of readings) {
    if (reading.policy === 'unknown') {
      warn('memory-policy-unknown', { node: reading.node });
    } else if (evictsJobs(reading.policy)) {
      throw new ConfigError(
        `${describe(reading.node)} runs maxmemory-policy ${reading.policy}: it may evict job rows and idempotency records. Set maxmemory-policy noeviction (or a volatile-* policy: nothing this package writes has a TTL).`,
      );
    }
  }
}

/** A memory policy that may evict keys without a TTL: job rows and idempotency records. */
export function evictsJobs(policy: string): boolean {
  return policy.startsWith('allkeys-');
}

function mismatch(bad: FenceReading, wire: string): FenceError {
  const where = describe(bad.node);
  const advice = 'Retry later; operators: run `emq install` once hosts and module agree.';
  if (bad.module !== null && bad.module !== wire) {
    return new FenceError(
      `Wire identity mismatch on ${where}: its module is built for '${bad.module}'; this host expects '${wire}'. ${advice}`,
    );
  }
  if (bad.value !== wire) {
    const holds = bad.value === null ? 'has no {emq}:version' : `holds '${bad.value}'`;
    return new FenceError(
      `Wire identity mismatch on ${where}: it ${holds}; this host expects '${wire}'. ${advice}`,
    );
  }
  const has = bad.library === null ? 'has no emq library' : `has emq library '${bad.library}'`;
  return new FenceError(
    `Library mismatch on ${where}: it ${has}; this host expects '${LIBRARY_VERSION}'. ${advice}`,
  );
}

/**
 * Loads the script of the script family where a primary lacks it (the connector, the
 * installer). Returns how many primaries it loaded it on.
 */
export async function loadScripts(
  target: FenceTarget,
  readings: readonly FenceReading[],
): Promise<number> {
  const primaries = target.primaries();
  const lacking = readings.filter(
    (reading) => !reading.functions && reading.library !== LIBRARY_VERSION,
  );
  await Promise.all(
    readings.map(async (reading, at) => {
      if (!lacking.includes(reading)) return;
      await primaries[at]?.call('SCRIPT', 'LOAD', SCRIPT_SOURCE);
    }),
  );
  return lacking.length;
}

/**
 * Installs this host's identity and the `emq` library on every primary, idempotently:
 * EMQ.WIRE.INSTALL where the module is loaded (the node's own copy), else a SET of the key
 * (on its owner, in a cluster: through the one endpoint on Serverless); then FUNCTION LOAD
 * REPLACE where the node runs functions, SCRIPT LOAD where it does not. Returns the readings.
 */
export async function install(target: FenceTarget): Promise<FenceReading[]> {
  const before = await readNodes(target);
  const primaries = target.primaries();
  const wire = target.config.wire;
  try {
    await Promise.all(
      primaries.map(async (node, index) => {
        const reading = before[index];
        if (reading === undefined) return;
        if (reading.module !== null && reading.module !== wire) {
          throw new FenceError(
            `Cannot install wire identity '${wire}' on ${describe(reading.node)}: its module is built for '${reading.module}'. Deploy a matching module or set EMQ_WIRE.`,
          );
        }
        if (reading.module !== null) await node.call('EMQ.WIRE.INSTALL');
        else if (!target.client.isCluster) await node.set(wireKey, wire);
        if (reading.functions) await node.call('FUNCTION', 'LOAD', 'REPLACE', LIBRARY_SOURCE);
        else await node.call('SCRIPT', 'LOAD', SCRIPT_SOURCE);
      }),
    );
    if (target.client.isCluster && before.some((reading) => reading.module === null)) {
      await target.client.set(wireKey, wire);
    }
  } catch (error) {
    throw installFailure(error);
  }
  return readNodes(target);
}

/**
 * A NOPERM on an install step is a right the user lacks (SET, FUNCTION LOAD, SCRIPT LOAD or
 * EMQ.WIRE.INSTALL: the installer's rules), never a family mismatch: the user was refused what
 * only installing sends.
 */
function installFailure(error: unknown): EmqError {
  const refused = refusedRight(error);
  if (refused === undefined) return classifyFailure(error);
  const what = `Valkey refused '${refused.command ?? 'a command'}' to ${refused.user === undefined ? "the connection's user" : `user '${refused.user}'`}`;
  return new ConfigError(
    `${what} while installing: installing takes the installer's rules (docs/security.md), which this user lacks. Run \`emq install\` as a user that holds them (the installer's, or an administrator's).`,
    { cause: error },
  );
}

/**
 * Checks, writing nothing of its own, that every primary already holds this host's identity
 * and library (or a module built for it): what the deploy-time installer does as the
 * functions' user, which may not set the identity or load the library. Only the script
 * family's script is loaded where a node's cache lacks it, as every connection of that family
 * does under the same rules. Throws a FenceError that names the node, what it lacks, the
 * rights installing takes and `emq install`; a ConfigError for an evicting memory policy.
 */
export async function verify(target: FenceTarget): Promise<FenceReading[]> {
  let readings = await readNodes(target);
  try {
    if ((await loadScripts(target, readings)) > 0) readings = await readNodes(target);
  } catch (error) {
    throw classifyFailure(error);
  }
  const wire = target.config.wire;
  const bad = readings.find((reading) => !reading.ok);
  if (bad !== undefined) throw notInstalled(bad, wire);
  checkNodes(readings, wire, () => {});
  return readings;
}

function notInstalled(bad: FenceReading, wire: string): FenceError {
  // A module built for another identity is not mended by installing: say so as a connection would.
  if (bad.module !== null && bad.module !== wire) return mismatch(bad, wire);
  const lacks: string[] = [];
  const rights: string[] = [];
  const identity = bad.value === wire;
  if (!identity) {
    lacks.push(bad.value === null ? 'has no {emq}:version' : `holds '${bad.value}'`);
    rights.push(bad.module === null ? 'SET of {emq}:version' : 'EMQ.WIRE.INSTALL');
  }
  // A module with this version's EMQ.ADMIT may need no library; with the identity right, it does.
  if (bad.library !== LIBRARY_VERSION && (identity || !bad.commands.admit)) {
    lacks.push(bad.library === null ? 'has no emq library' : `has emq library '${bad.library}'`);
    rights.push(bad.functions ? 'FUNCTION LOAD' : 'SCRIPT LOAD');
  }
  return new FenceError(
    `Not installed: ${describe(bad.node)} ${lacks.join(' and ')}; this host needs wire identity '${wire}' and emq library '${LIBRARY_VERSION}'. This connection only verifies: installing takes ${rights.join(' and ')}, rights of the installer's rules (docs/security.md) that the functions' user is not given. Run \`emq install\` as a user that holds them (the installer's, or an administrator's), then retry.`,
  );
}

function describe(node: string): string {
  return node === 'server' ? 'the server' : `cluster node ${node}`;
}
