-- enqueue-2.lua: admit one job (SPEC §3-4), the script twin of EMQ.ENQUEUE.
--
-- KEYS[1]  emq:{q}:job:<id>   the job row (hash)
-- KEYS[2]  emq:{q}:pending    the pending set (sorted set)
-- ARGV[1]  <id>               the job id
-- ARGV[2]  <payload>          the caller's bytes, verbatim
--
-- Replies, the same as the native command's:
--   1                                      the row and the pending entry were written
--   0                                      the row exists; nothing written
--   error ERR wrong number of arguments    not exactly two keys and two arguments
--   error EMQLAYOUT ...                    the keys are not emq:{q}:job:<id> and emq:{q}:pending
--   error EMQKIND ...                      the id does not start with JOB
--   error WRONGTYPE ...                    the pending key is not a sorted set
-- Every refusal comes before the first write, so a refusal writes nothing. There is no
-- fence here: {emq}:version lives on another slot, out of a script's reach.

if #KEYS ~= 2 or #ARGV ~= 2 then
  return redis.error_reply('ERR wrong number of arguments for enqueue-2')
end
local row, pending, id = KEYS[1], KEYS[2], ARGV[1]

local queue = string.match(pending, '^emq:{([^{}]+)}:pending$')
if queue == nil or row ~= 'emq:{' .. queue .. '}:job:' .. id then
  return redis.error_reply('EMQLAYOUT keys must be emq:{q}:job:<id> and emq:{q}:pending')
end

if string.sub(id, 1, 3) ~= 'JOB' then
  return redis.error_reply('EMQKIND job id must be JOB-namespaced')
end

if redis.call('EXISTS', row) == 1 then
  return 0
end

local kind = redis.call('TYPE', pending)['ok']
if kind ~= 'none' and kind ~= 'zset' then
  return redis.error_reply('WRONGTYPE Operation against a key holding the wrong kind of value')
end

redis.call('HSET', row, 'state', 'pending', 'attempts', '0', 'payload', ARGV[2])
redis.call('ZADD', pending, 0, id)
return 1
