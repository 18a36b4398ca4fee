#!lua name=emq
-- emq: the EchoMQ function library (SPEC §3-§5), the function family of the admission calls.
-- Loaded once per primary by `emq install` (FUNCTION LOAD REPLACE); persisted and replicated.
-- Every call checks before its first write, so every refusal leaves the dataset as it was.
-- Where the EchoMQ module is loaded, the row is written through EMQ.ENQUEUE, so the module's
-- per-write fence and paused guard hold for this family too.
--
-- emq_version: FCALL_RO emq_version 0
--   reply  the library version (bulk string); the connector compares it with its own
--
-- emq_enqueue: FCALL emq_enqueue 2 <row> <pending> <id> <payload>
--   KEYS[1] emq:{q}:job:<id>   the job row (hash)
--   KEYS[2] emq:{q}:pending    the pending set (sorted set)
--   ARGV[1] <id>               the job id
--   ARGV[2] <payload>          the caller's bytes, verbatim
--   reply   1 written, 0 the row existed (nothing written)
--
-- emq_admit: FCALL emq_admit 3 <row> <pending> <dedupe> <id> <payload> <ttl-ms>
--   KEYS[1] emq:{q}:job:<id>   the proposed id's row
--   KEYS[2] emq:{q}:pending
--   KEYS[3] emq:{q}:dedupe:<h> the idempotency key's record (43 base64url chars)
--   ARGV[1] <id>               the proposed id
--   ARGV[2] <payload>
--   ARGV[3] <ttl-ms>           the record's lifetime, a positive integer
--   reply   [1, id]  the key was new: row, pending entry and record (value id, PX ttl) written
--           [0, id]  the record names id; its row holds this payload or is gone (consumed).
--                    The record is rewritten as it is (KEEPTTL) so that a WAIT after this call
--                    confirms the original write too (SPEC §11).
--           [-1, id] the record names id, whose row holds another payload; nothing written
--           [2, id]  the key was new but the proposed row exists; nothing written
--
-- Refusals, in SPEC §4's order (the fence is the module's, or the connector's check):
--   ERR wrong number of arguments ...   key count or arity
--   EMQLAYOUT ...                       keys not of one queue's layout
--   EMQKIND job id must be JOB-namespaced
--   WRONGTYPE ...                       pending not a zset, record not a string, row not a hash
--   and any refusal of EMQ.ENQUEUE where the module is loaded (EMQWIRE, ERR EMQ write-paused)

local VERSION = '1'

local WRONGTYPE = 'WRONGTYPE Operation against a key holding the wrong kind of value'
local LAYOUT2 = 'EMQLAYOUT keys must be emq:{q}:job:<id> and emq:{q}:pending'
local LAYOUT3 = 'EMQLAYOUT keys must be emq:{q}:job:<id>, emq:{q}:pending and emq:{q}:dedupe:<h>'
local KIND = 'EMQKIND job id must be JOB-namespaced'

local function refuse(text)
  return redis.error_reply(text)
end

-- The queue of a pending key, or nil when the row key is not that queue's row of `id`.
local function queue_of(row, pending, id)
  local queue = string.match(pending, '^emq:{([^{}]+)}:pending$')
  if queue == nil or row ~= 'emq:{' .. queue .. '}:job:' .. id then return nil end
  return queue
end

local function type_of(key)
  return redis.call('TYPE', key)['ok']
end

-- Whether the server knows EMQ.ENQUEUE: nil until the first write asks, then kept for the
-- library's life. Modules load only at server start and FUNCTION LOAD starts a fresh library,
-- so the answer cannot change under it; only "unknown command" or a success settles it.
local has_module = nil

-- Writes the row and the pending entry after the caller's checks. Through the module's
-- EMQ.ENQUEUE where it is loaded (its fence and paused guard then hold); plain HSET + ZADD
-- where the server does not know it. Returns nil when written, 0 when the module found the
-- row, else the error reply to return (nothing was written).
local function write_row(row, pending, id, payload)
  if has_module ~= false then
    local reply = redis.pcall('EMQ.ENQUEUE', '2', row, pending, id, payload)
    local failed = type(reply) == 'table' and reply['err'] ~= nil
    if not failed or string.find(reply['err'], 'Unknown command', 1, true) == nil then
      if not failed then has_module = true end
      if failed then return reply end
      if reply == 0 then return 0 end
      if reply ~= 1 then return refuse('ERR EMQ.ENQUEUE answered ' .. tostring(reply)) end
      return nil
    end
    has_module = false
  end
  if redis.call('EXISTS', row) == 1 then return 0 end
  local kind = type_of(pending)
  if kind ~= 'none' and kind ~= 'zset' then return refuse(WRONGTYPE) end
  redis.call('HSET', row, 'state', 'pending', 'attempts', '0', 'payload', payload)
  redis.call('ZADD', pending, 0, id)
  return nil
end

local function emq_enqueue(keys, args)
  if #keys ~= 2 or #args ~= 2 then
    return refuse("ERR wrong number of arguments for 'emq_enqueue' function")
  end
  local row, pending, id, payload = keys[1], keys[2], args[1], args[2]
  if queue_of(row, pending, id) == nil then return refuse(LAYOUT2) end
  if string.sub(id, 1, 3) ~= 'JOB' then return refuse(KIND) end
  local failed = write_row(row, pending, id, payload)
  if failed ~= nil then return failed end
  return 1
end

local function emq_admit(keys, args)
  if #keys ~= 3 or #args ~= 3 then
    return refuse("ERR wrong number of arguments for 'emq_admit' function")
  end
  local row, pending, dedupe, id, payload, ttl = keys[1], keys[2], keys[3], args[1], args[2], args[3]
  local queue = queue_of(row, pending, id)
  local prefix = queue and ('emq:{' .. queue .. '}:dedupe:')
  local digest = queue and string.sub(dedupe, #prefix + 1)
  if queue == nil or string.sub(dedupe, 1, #prefix) ~= prefix or #digest ~= 43
    or string.match(digest, '^[A-Za-z0-9_-]+$') == nil then
    return refuse(LAYOUT3)
  end
  if string.match(ttl, '^[1-9][0-9]*$') == nil or #ttl > 15 then
    return refuse("ERR wrong number of arguments for 'emq_admit' function: ttl-ms must be a positive integer")
  end
  if string.sub(id, 1, 3) ~= 'JOB' then return refuse(KIND) end

  -- One GET reads the record and its type: false when missing, an error reply when not a string.
  local earlier = redis.pcall('GET', dedupe)
  if type(earlier) == 'table' then return refuse(WRONGTYPE) end
  if earlier then
    local earlier_row = 'emq:{' .. queue .. '}:job:' .. earlier
    local stored = redis.pcall('HGET', earlier_row, 'payload')
    if type(stored) == 'table' then return refuse(WRONGTYPE) end
    -- The row holds another payload; a row that is gone was consumed: the same job. A row
    -- without a payload field is not that job's row (as the module answers it).
    if stored and stored ~= payload then return { -1, earlier } end
    if not stored and redis.call('EXISTS', earlier_row) == 1 then return { -1, earlier } end
    redis.call('SET', dedupe, earlier, 'KEEPTTL')
    return { 0, earlier }
  end

  local failed = write_row(row, pending, id, payload)
  if failed == 0 then return { 2, id } end
  if failed ~= nil then return failed end
  redis.call('SET', dedupe, id, 'PX', ttl)
  return { 1, id }
end

redis.register_function('emq_enqueue', emq_enqueue)
redis.register_function('emq_admit', emq_admit)
redis.register_function({
  function_name = 'emq_version',
  callback = function() return VERSION end,
  flags = { 'no-writes' },
})
