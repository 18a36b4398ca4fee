/**
 * The least-privilege ACL rules operators give the package's Valkey users; the README quotes
 * them from here, and the ACL tests run the functions under exactly these rules.
 *
 * What the functions send, and why each command is listed:
 * - connecting: INFO (the client's ready check), CLUSTER SLOTS and CLUSTER INFO (cluster slot
 *   map and ready check);
 * - the fence check: EMQ.WIRE and CLUSTER MYID where the module is loaded, else a GET of
 *   `{emq}:version`, which the rule makes readable and nothing else;
 * - admission: EMQ.ENQUEUE, or the Lua script (EVALSHA, EVAL on NOSCRIPT) whose own calls
 *   (EXISTS, HSET on the row; TYPE, ZADD on the pending set) are checked against the rule too;
 *   SET on dedupe records; HGET / HGETALL to read a row back; DEL and ZREM to take back a
 *   second row (SPEC §5).
 * With selectors, each pairs commands with the keys they may touch, so SET reaches only
 * dedupe records, DEL only job rows, ZREM only pending sets. A server refuses a rule naming a
 * command it does not have, so where the module is not loaded (ElastiCache) the EMQ.*
 * commands are left out; the functions then take the script path on their own.
 */

export interface RuleOptions {
  /** The server loads the EchoMQ module (EMQ.ENQUEUE, EMQ.WIRE). Required. */
  readonly module: boolean;
  /** Use Valkey 7+ selectors to pair commands with keys. Default `true`. */
  readonly selectors?: boolean;
}

const CONNECT = ['+info', '+cluster|slots', '+cluster|info'];
const MODULE_FENCE = ['+emq.wire', '+cluster|myid'];
const BASE = ['resetkeys', 'resetchannels', '-@all'];

/** For the HTTP and SQS functions (EMQ_USERNAME, or the user in EMQ_SECRET_ARN's secret). */
export function functionsRule(options: RuleOptions): string {
  const fence = [...(options.module ? MODULE_FENCE : []), '+get', '%R~{emq}:version'];
  const enqueue = [...(options.module ? ['+emq.enqueue'] : []), '+evalsha', '+eval'];
  if (options.selectors === false) {
    return [
      ...BASE,
      ...CONNECT,
      ...fence,
      ...enqueue,
      ...['+exists', '+hset', '+hget', '+hgetall', '+del', '+type', '+zadd', '+zrem', '+set'],
      '~emq:{*}:*',
    ].join(' ');
  }
  return [
    ...BASE,
    ...CONNECT,
    ...fence,
    `(~emq:{*}:job:* ~emq:{*}:pending ${enqueue.join(' ')})`,
    '(~emq:{*}:job:* +exists +hset +hget +hgetall +del)',
    '(~emq:{*}:pending +type +zadd +zrem)',
    '(~emq:{*}:dedupe:* +set)',
  ].join(' ');
}

/**
 * For the fence installer (the deploy-time custom resource, `emq fence install`): it reads and
 * writes `{emq}:version` (EMQ.WIRE.INSTALL where the module is loaded, a SET where it is not)
 * and nothing else.
 */
export function fenceInstallerRule(options: Pick<RuleOptions, 'module'>): string {
  return [
    ...BASE,
    ...CONNECT,
    ...(options.module ? [...MODULE_FENCE, '+emq.wire.install'] : []),
    '+get',
    '+set',
    '~{emq}:version',
  ].join(' ');
}

/** One `user` line of an ACL file: enabled, with this password and rule. */
export function aclUserLine(name: string, password: string, rule: string): string {
  return `user ${name} on >${password} ${rule}`;
}
