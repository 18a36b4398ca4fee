/**
 * The ACL rules of the package's two Valkey users, per server kind: plain constants, so that
 * infra deploys exactly these strings (ElastiCache RBAC access strings, the self-managed
 * nodes' users.acl) and the ACL tests apply exactly these strings to real servers.
 *
 * Every rule starts `on resetchannels -@all` and grants only what the code sends:
 * - connecting (iovalkey and src/install.ts readNode): INFO (ready check, INFO memory),
 *   CLUSTER SLOTS / INFO / MYID (slot map, cluster ready check, node id), COMMAND INFO
 *   (which EMQ.* commands a node knows), FCALL_RO (`emq_version`, the library check, a
 *   no-writes function), a GET of `{emq}:version` readable only (`%R~`), and EMQ.WIRE (the
 *   module's readonly identity read) where the module is loaded;
 * - WAIT (EMQ_ACK_REPLICAS), which names no key;
 * - reads: HGET of a job row's payload (a caller-id replay compares payloads, 200 or 409),
 *   HGETALL of job rows (readJob, `emq get`), ZCARD / ZRANGE of pending sets (`emq pending`).
 * Admission differs by kind. Selectors `(...)` pair commands with the keys they may touch;
 * ElastiCache accepts them from engine 7 (its "next version of ACLs": several permission
 * sets, key permissions) but refuses `reset`, so no rule uses it.
 *
 * ElastiCache (no module): FCALL of the `emq` library. A function's inner calls are checked
 * against the caller's ACL, and Valkey has no "inside a function only" grant, so the inner
 * commands are granted too, each only on the keys the library gives it: EXISTS, HSET, HGET
 * on job rows; TYPE, ZADD on pending sets; GET, SET on dedupe records. The cost, stated in
 * the README: this user can also send those commands itself, i.e. write fields of a job row,
 * add members to a pending set and write a dedupe record (with any TTL) directly, bypassing
 * the library's checks. It still cannot delete, expire, list, dump or read other keys, run
 * Lua of its own, load or flush functions, or write `{emq}:version`.
 *
 * Self-managed (module): EMQ.ENQUEUE / EMQ.ADMIT on the queue keys. The module writes
 * without calling commands, so no inner command is granted, and FCALL is not granted at all.
 */

const BASE = 'on resetchannels -@all';
const CONNECT = '+info +cluster|slots +cluster|info +cluster|myid +command|info +fcall_ro';
const FENCE_READ = '+get %R~{emq}:version';
const ROWS = '~emq:{*}:job:*';
const PENDING = '~emq:{*}:pending';
const DEDUPE = '~emq:{*}:dedupe:*';
const QUEUE_KEYS = `${ROWS} ${PENDING} ${DEDUPE}`;

/** The functions' user on a server without the module (ElastiCache): the function family. */
export const FUNCTIONS_RULES_ELASTICACHE = [
  BASE,
  CONNECT,
  '+wait',
  FENCE_READ,
  `(${QUEUE_KEYS} +fcall)`,
  `(${ROWS} +exists +hset +hget +hgetall)`,
  `(${PENDING} +type +zadd +zcard +zrange)`,
  `(${DEDUPE} +get +set)`,
].join(' ');

/** The functions' user on servers that load the module (self-managed): the native family. */
export const FUNCTIONS_RULES_SELFMANAGED = [
  BASE,
  CONNECT,
  '+emq.wire +wait',
  FENCE_READ,
  `(${QUEUE_KEYS} +emq.enqueue +emq.admit)`,
  `(${ROWS} +hget +hgetall)`,
  `(${PENDING} +zcard +zrange)`,
].join(' ');

/**
 * The installer's user without the module: it reads the node state like a connection, sets
 * `{emq}:version` (its only key) and loads the `emq` library (FUNCTION LOAD REPLACE; no
 * FLUSH, DELETE or DUMP).
 */
export const INSTALLER_RULES_ELASTICACHE = `${BASE} ${CONNECT} +function|load +get +set ~{emq}:version`;

/**
 * The installer's user with the module: EMQ.WIRE.INSTALL writes each node's own copy of the
 * identity (it names no key), so it needs no key write at all.
 */
export const INSTALLER_RULES_SELFMANAGED = `${BASE} ${CONNECT} +function|load +emq.wire +emq.wire.install ${FENCE_READ}`;
