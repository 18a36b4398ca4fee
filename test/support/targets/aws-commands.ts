/**
 * What AWS documents about the commands of its Valkey services, transcribed as data: the
 * profile table (profiles.ts) builds each target's unavailable and supported sets from these
 * lists. Names are lowercase; a subcommand is `command|subcommand`, as Valkey's ACL and
 * commandstats spell it. Where a page lists a name Valkey spells otherwise, the Valkey name is
 * used and the page's spelling is noted beside it. Read on 2026-12-01.
 */

/** https://docs.aws.amazon.com/AmazonElastiCache/latest/dg/SupportedCommands.html */
export const SUPPORTED_COMMANDS_PAGE =
  'https://docs.aws.amazon.com/AmazonElastiCache/latest/dg/SupportedCommands.html';
/** https://docs.aws.amazon.com/AmazonElastiCache/latest/dg/ClientConfig.RestrictedCommands.html */
export const NODE_BASED_RESTRICTED_PAGE =
  'https://docs.aws.amazon.com/AmazonElastiCache/latest/dg/ClientConfig.RestrictedCommands.html';
/** https://docs.aws.amazon.com/memorydb/latest/devguide/restrictedcommands.html */
export const MEMORYDB_RESTRICTED_PAGE =
  'https://docs.aws.amazon.com/memorydb/latest/devguide/restrictedcommands.html';
/** https://docs.aws.amazon.com/AmazonElastiCache/latest/dg/RedisConfiguration.html */
export const SERVERLESS_CONFIGURATION_PAGE =
  'https://docs.aws.amazon.com/AmazonElastiCache/latest/dg/RedisConfiguration.html';
/** https://docs.aws.amazon.com/AmazonElastiCache/latest/dg/ServerlessWatch.html */
export const SERVERLESS_WATCH_PAGE =
  'https://docs.aws.amazon.com/AmazonElastiCache/latest/dg/ServerlessWatch.html';
/** https://docs.aws.amazon.com/AmazonElastiCache/latest/dg/BestPractices.Clients.Redis.LuaScripts.html */
export const LUA_BEST_PRACTICES_PAGE =
  'https://docs.aws.amazon.com/AmazonElastiCache/latest/dg/BestPractices.Clients.Redis.LuaScripts.html';

const words = (text: string): readonly string[] => text.trim().split(/\s+/);

/**
 * SupportedCommands.html, "Restricted Valkey and Redis OSS commands": "For caches running
 * Redis OSS, the following commands are unavailable" (the page's first list, for every
 * ElastiCache cache). `cluster addslot` / `cluster delslot` on the page are ADDSLOTS / DELSLOTS.
 */
export const ELASTICACHE_RESTRICTED: readonly string[] = words(`
  acl|setuser acl|load acl|save acl|deluser bgrewriteaof bgsave
  cluster|addslots cluster|addslotsrange cluster|bumpepoch cluster|delslots
  cluster|delslotsrange cluster|failover cluster|flushslots cluster|forget cluster|links
  cluster|meet cluster|setslot config debug migrate psync replicaof save slaveof shutdown sync
`);

/**
 * ClientConfig.RestrictedCommands.html (node-based clusters): bgrewriteaof, bgsave, config,
 * debug, migrate, replicaof, save, slaveof, shutdown, sync. All are in ELASTICACHE_RESTRICTED.
 */
export const NODE_BASED_RESTRICTED: readonly string[] = words(`
  bgrewriteaof bgsave config debug migrate replicaof save slaveof shutdown sync
`);

/** SupportedCommands.html: "In addition, the following commands are unavailable for serverless caches". */
export const SERVERLESS_RESTRICTED: readonly string[] = words(`
  acl|log client|caching client|getredir client|id client|info client|kill client|list
  client|no-evict client|pause client|tracking client|trackinginfo client|unblock
  client|unpause cluster|count-failure-reports commandlog fcall fcall_ro function keys lastsave
  latency memory monitor move object pfdebug pfselftest psubscribe pubsub|numpat punsubscribe
  script|kill slowlog swapdb wait
`);

/**
 * SupportedCommands.html, "The following Valkey and Redis OSS commands are supported by
 * serverless caches" (the JSON and Bloom filter commands it refers to are left out: the
 * product sends none), and WATCH / UNWATCH, which ServerlessWatch.html documents (since
 * 2025-12, keys of one hash slot, at most 1,000 per connection). A container listed whole
 * (COMMAND, COMMANDLOG) stands for itself without a subcommand.
 */
export const SERVERLESS_SUPPORTED: readonly string[] = words(`
  bitcount bitfield bitfield_ro bitop bitpos getbit setbit
  cluster|countkeysinslot cluster|getkeysinslot cluster|info cluster|keyslot cluster|myid
  cluster|nodes cluster|replicas cluster|shards cluster|slots cluster|slot-stats readonly
  readwrite script|show
  auth client|getname client|reply client|setname echo hello ping quit reset select
  copy del dump exists expire expireat expiretime persist pexpire pexpireat pexpiretime pttl
  randomkey rename renamenx restore scan sort sort_ro touch ttl type unlink
  geoadd geodist geohash geopos georadius georadius_ro georadiusbymember georadiusbymember_ro
  geosearch geosearchstore
  hdel hexists hget hgetall hincrby hincrbyfloat hkeys hlen hmget hmset hrandfield hscan hset
  hsetnx hstrlen hvals
  pfadd pfcount pfmerge
  blmove blmpop blpop brpop brpoplpush lindex linsert llen lmove lmpop lpop lpos lpush lpushx
  lrange lrem lset ltrim rpop rpoplpush rpush rpushx
  publish pubsub|channels pubsub|numsub pubsub|shardchannels pubsub|shardnumsub spublish
  ssubscribe subscribe sunsubscribe unsubscribe
  eval eval_ro evalsha evalsha_ro script|exists script|flush script|load
  acl|cat acl|genpass acl|getuser acl|list acl|users acl|whoami dbsize command command|count
  command|docs command|getkeys command|getkeysandflags command|info command|list
  commandlog|get commandlog|help commandlog|len commandlog|reset flushall flushdb info lolwut
  role time
  sadd scard sdiff sdiffstore sinter sintercard sinterstore sismember smembers smismember smove
  spop srandmember srem sscan sunion sunionstore
  bzmpop bzpopmax bzpopmin zadd zcard zcount zdiff zdiffstore zincrby zinter zintercard
  zinterstore zlexcount zmpop zmscore zpopmax zpopmin zrandmember zrange zrangebylex
  zrangebyscore zrangestore zrank zrem zremrangebylex zremrangebyrank zremrangebyscore
  zrevrange zrevrangebylex zrevrangebyscore zrevrank zscan zscore zunion zunionstore
  xack xadd xautoclaim xclaim xdel xgroup|create xgroup|createconsumer xgroup|delconsumer
  xgroup|destroy xgroup|setid xinfo|consumers xinfo|groups xinfo|stream xlen xpending xrange
  xread xreadgroup xrevrange xtrim
  append decr decrby get getdel getex getrange getset incr incrby incrbyfloat lcs mget mset
  msetnx psetex set setex setnx setrange strlen substr
  discard exec multi watch unwatch
`);

/**
 * restrictedcommands.html (MemoryDB): "The following commands are unavailable". `cluster
 * addslot` / `cluster delslot` on the page are ADDSLOTS / DELSLOTS; their -RANGE forms are
 * assumed unavailable too (the same slot assignment, added in Valkey 7).
 */
export const MEMORYDB_RESTRICTED: readonly string[] = words(`
  acl|deluser acl|load acl|save acl|setuser bgrewriteaof bgsave cluster|addslots
  cluster|addslotsrange cluster|delslots cluster|delslotsrange cluster|setslot config debug
  migrate module psync replicaof save shutdown slaveof sync
`);

/** BestPractices.Clients.Redis.LuaScripts.html, the serverless example, verbatim. */
export const KEYLESS_SCRIPT_ERROR = 'ERR Lua scripts without any input keys are not supported.';

/** RedisConfiguration.html, serverless: "clients cannot issue a request with more than 3,999 arguments". */
export const SERVERLESS_MAX_ARGUMENTS = 3_999;
