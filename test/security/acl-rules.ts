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
 * Each selector pairs commands with the keys they may touch, so SET reaches only dedupe
 * records, DEL only job rows, ZREM only pending sets.
 */

/** For the HTTP and SQS functions (EMQ_USERNAME / the secret's user). Valkey 7+ selectors. */
export const FUNCTIONS_RULE = [
  'resetkeys',
  'resetchannels',
  '-@all',
  '+info',
  '+cluster|slots',
  '+cluster|info',
  '+cluster|myid',
  '+emq.wire',
  '+get',
  '%R~{emq}:version',
  '(~emq:{*}:job:* ~emq:{*}:pending +emq.enqueue +evalsha +eval)',
  '(~emq:{*}:job:* +exists +hset +hget +hgetall +del)',
  '(~emq:{*}:pending +type +zadd +zrem)',
  '(~emq:{*}:dedupe:* +set)',
].join(' ');

/** The same without selectors, for servers that lack them: every listed command on every queue key. */
export const FUNCTIONS_FLAT_RULE = [
  'resetkeys',
  'resetchannels',
  '-@all',
  '+info',
  '+cluster|slots',
  '+cluster|info',
  '+cluster|myid',
  '+emq.wire',
  '+emq.enqueue',
  '+evalsha',
  '+eval',
  '+exists',
  '+type',
  '+hset',
  '+hget',
  '+hgetall',
  '+del',
  '+zadd',
  '+zrem',
  '+set',
  '+get',
  '~emq:{*}:*',
  '%R~{emq}:version',
].join(' ');

/**
 * For the fence installer (the deploy-time custom resource, `emq fence install`): it reads and
 * writes `{emq}:version` (EMQ.WIRE INSTALL where the module is loaded, a SET where it is not)
 * and nothing else.
 */
export const FENCE_INSTALLER_RULE = [
  'resetkeys',
  'resetchannels',
  '-@all',
  '+info',
  '+cluster|slots',
  '+cluster|info',
  '+cluster|myid',
  '+emq.wire',
  '+get',
  '+set',
  '~{emq}:version',
].join(' ');

/** One `user` line of an ACL file: enabled, with this password and rule. */
export function aclUserLine(name: string, password: string, rule: string): string {
  return `user ${name} on >${password} ${rule}`;
}
