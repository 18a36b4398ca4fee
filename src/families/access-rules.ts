/**
 * The ACL rules of the package's two Valkey users, per family of admission calls (docs/wire.md,
 * "The calls"): plain constants, so that infra deploys exactly these strings (ElastiCache RBAC
 * access strings, the self-managed nodes' users.acl) and the ACL tests apply exactly these strings
 * to real servers. Which kind deploys which: function family on ElastiCache node-based (and
 * the rules to give a MemoryDB or plain Valkey user for cache=existing), script family on
 * ElastiCache Serverless, native family on the self-managed cluster.
 *
 * Every rule starts `on resetchannels -@all` and grants only what the code sends:
 * - connecting (iovalkey and the connector's node check): INFO (ready check, INFO memory),
 *   CLUSTER SLOTS / INFO / MYID (slot map, cluster ready check, node id; iovalkey 0.4.0
 *   sends no CLUSTER SHARDS), COMMAND INFO (which EMQ.* commands a node knows: native family
 *   only; under EMQ_EXECUTOR=auto a user refused it is of the function family, or of the
 *   script family where it holds SCRIPT EXISTS, src/connection/node-reading.ts), a GET of
 *   `{emq}:version` readable only (`%R~`), and the library check: FCALL_RO `emq_version` (function,
 *   native), SCRIPT EXISTS of the script's SHA-1, with SCRIPT LOAD where it is missing (script),
 *   EMQ.WIRE (the module's readonly identity read, native);
 * - WAIT (EMQ_ACK_REPLICAS), which names no key; never in the script family (Serverless has
 *   none);
 * - reads: HGET of a job row's payload, HGETALL of job rows (readJob, `emq get`), ZCARD /
 *   ZRANGE of pending sets (`emq pending`).
 * Selectors `(...)` pair commands with the keys they may touch; ElastiCache accepts them
 * from engine 7 (its "next version of ACLs") but refuses `reset`, so no rule uses it. A rule
 * names only commands its servers have: a server refuses a rule naming a command it lacks.
 *
 * What each grant costs (for the README):
 * - Function and script families: a function's or script's inner calls are checked against
 *   the caller's ACL, and Valkey has no "only from inside the library" grant. So the user
 *   holds the inner commands of `emq_admit` (src/families/emq.lua), each only on its keys:
 *   TIME; GET, PTTL of `{emq}:version` read-only; EXISTS, HGET, HSET on job rows; TYPE, ZADD
 *   on pending sets; HMGET, HSET, UNLINK on a queue's four record slots
 *   (`emq:{q}:dedupe:<one character>`). It can therefore write fields of a job row, add
 *   pending members and write or unlink record slots directly, bypassing the library's
 *   checks (a bad record write can make a replay admit a second job). It still cannot delete, expire, list, dump or read keys beyond those, write the
 *   identity, or load or flush functions.
 * - Script family only: EVALSHA with SCRIPT LOAD lets the user run any Lua it writes, not only
 *   the library's; each command that Lua calls is still bounded by the user's own command
 *   and key permissions above, and on Serverless by its 5 s Lua time limit (it has no SCRIPT
 *   KILL, so a looping script holds its shard until then). EVAL is not granted: every
 *   script the user runs was loaded first.
 * - Native family: the module writes without ACL-checked inner calls, so no inner command is
 *   granted and FCALL's user holds no write of its own; EMQ.ENQUEUE / EMQ.ADMIT check the
 *   layout and the fence before they write.
 * - `emq purge` (HSCAN, HDEL, HLEN of record slots) is an operator's job: no rule grants it.
 */

const BASE = 'on resetchannels -@all';
/** The connect-time reads every family sends (COMMAND INFO only the native family, below). */
const CONNECT = '+info +cluster|slots +cluster|info +cluster|myid';
/** The native family asks COMMAND INFO whether a node's EMQ.ADMIT is this version's. */
const COMMAND_INFO = '+command|info';
/** The identity, readable only: the connector's GET, the library's fence check (GET, PTTL). */
const FENCE_READ = '%R~{emq}:version';
const ROWS = '~emq:{*}:job:*';
const PENDING = '~emq:{*}:pending';
/** A queue's four record slots, `emq:{q}:dedupe:0` to `:3`. */
const SLOTS = '~emq:{*}:dedupe:?';
const QUEUE_KEYS = `${ROWS} ${PENDING} ${SLOTS}`;

/** The inner commands of `emq_admit`, with the reads, on their keys. */
const INNER = [
  `(${ROWS} +exists +hget +hset +hgetall)`,
  `(${PENDING} +type +zadd +zcard +zrange)`,
  `(${SLOTS} +hmget +hset +unlink)`,
].join(' ');

/** The functions' user of the function family (ElastiCache node-based; MemoryDB, Valkey 7.2+). */
export const FUNCTIONS_RULES_FUNCTION = [
  BASE,
  CONNECT,
  '+fcall_ro +wait +time +get +pttl',
  FENCE_READ,
  `(${QUEUE_KEYS} +fcall)`,
  INNER,
].join(' ');

/**
 * The functions' user of the script family (ElastiCache Serverless: no FCALL, FUNCTION or
 * WAIT). EVALSHA runs the library on the queue keys only (the script's own GET of
 * `{emq}:version` is a read). SCRIPT EXISTS tells the script's version (its SHA-1 is the
 * source's) and SCRIPT LOAD loads it where a node's cache lacks it.
 */
export const FUNCTIONS_RULES_SCRIPT = [
  BASE,
  CONNECT,
  '+script|exists +script|load +time +get +pttl',
  FENCE_READ,
  `(${QUEUE_KEYS} +evalsha)`,
  INNER,
].join(' ');

/** The functions' user on servers that load the module (self-managed): the native family. */
export const FUNCTIONS_RULES_NATIVE = [
  BASE,
  CONNECT,
  COMMAND_INFO,
  '+fcall_ro +emq.wire +wait +get',
  FENCE_READ,
  `(${QUEUE_KEYS} +emq.enqueue +emq.admit)`,
  `(${ROWS} +hget +hgetall)`,
  `(${PENDING} +zcard +zrange)`,
].join(' ');

/**
 * The installer's user of the function family: it reads the node state like a connection,
 * sets `{emq}:version` (its only key) and loads the `emq` library (FUNCTION LOAD REPLACE; no
 * FLUSH, DELETE or DUMP).
 */
export const INSTALLER_RULES_FUNCTION = `${BASE} ${CONNECT} +fcall_ro +function|load +get +set ~{emq}:version`;

/**
 * The installer's user of the script family: it loads the script (SCRIPT LOAD), sets
 * `{emq}:version` through the one endpoint, and reads the result back (GET, SCRIPT EXISTS).
 */
export const INSTALLER_RULES_SCRIPT = `${BASE} ${CONNECT} +script|exists +script|load +get +set ~{emq}:version`;

/**
 * The installer's user with the module: EMQ.WIRE.INSTALL writes each node's own copy of the
 * identity (it names no key), so it needs no key write at all; FUNCTION LOAD loads the
 * library the function family of other hosts calls.
 */
export const INSTALLER_RULES_NATIVE = `${BASE} ${CONNECT} ${COMMAND_INFO} +fcall_ro +function|load +emq.wire +emq.wire.install +get ${FENCE_READ}`;
