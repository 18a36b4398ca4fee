#!lua name=emq
-- emq: the EchoMQ library (docs/wire.md, "The row at birth" to "The fence"), the function and
-- script families of the admission calls (docs/wire.md). One text, two ways to run it:
--   function family  FUNCTION LOAD REPLACE of this text (by `emq install`); FCALL <name> ...
--   script family    the same text with this first line blanked, run by EVALSHA; the first
--                    ARGV names the call (admit, enqueue, purge, version): EVALSHA <sha> N ...
-- Every call checks before its first write, so a refusal leaves the dataset as it was. Where
-- the EchoMQ module is loaded, rows are written through EMQ.ENQUEUE, so the module's
-- per-write fence and paused guard hold for these families too.
--
-- emq_version: FCALL_RO emq_version 0 | EVALSHA <sha> 1 {emq}:version version
--   reply  the library version (bulk string); the connector compares it with its own
--
-- emq_enqueue (the seeds' call, unchanged): FCALL emq_enqueue 2 <row> <pending> <id> <payload>
--   KEYS[1] emq:{q}:job:<id>, KEYS[2] emq:{q}:pending; ARGV <id> <payload>
--   reply   1 written, 0 the row existed (nothing written)
--
-- emq_admit: FCALL emq_admit <5+n> <pending> <slot0> <slot1> <slot2> <slot3> <row_i>...
--                            <wire> <ttl-ms> (<claim_i> <payload_i>)...
--   n admissions of one queue, 1 <= n; each is atomic and judged as if alone, in order.
--   KEYS[1]     emq:{q}:pending               the pending set (sorted set)
--   KEYS[2..5]  emq:{q}:dedupe:0 .. :3        the queue's record slots (hashes, no key TTL)
--   KEYS[5+i]   emq:{q}:job:<id_i>            admission i's proposed row (hash): the id is
--                                             the key's tail, so it travels once
--   ARGV wire   the wire identity the host expects in {emq}:version
--   ARGV ttl    how long a new record lives, ms, 1 to 999999999999999
--   ARGV claim_i 39 bytes: the kind (m: a minted proposal; c: a caller's id, namespace id,
--               docs/wire.md "Idempotency records"), the host's 16-character base64url
--               digest of payload_i, then the record's 22-character field (h_i's first 22
--               characters)
--   ARGV payload_i the caller's bytes, verbatim
--   reply   an array of n replies, in order: [status, id] or an error (EMQKIND, WRONGTYPE)
--     [1, id]   the key was new: row, pending entry and record written
--     [0, id]   the key's record names id with this digest (the job exists or was consumed);
--               a call that writes nothing else rewrites that record as it is, so a WAIT
--               after it covers the original write (docs/reliability.md, "Acknowledgements")
--     [-1, id]  the key's record names id with another digest; nothing written
--     [2, id]   the key was new, the proposed row exists: nothing written (m); for a caller
--               id (c) the row's payload is compared instead: the same records the key and
--               answers [0, id], another answers [-1, id]
--   A record is field h_i[1..22] of a slot, value <id>:<digest>:<expiry ms, server time>;
--   it counts while its expiry lies ahead. Field `~` of a slot holds the latest expiry in
--   it. A new record goes to slot floor(expiry / W) mod 4, W = ceil(ttl / 2); a slot whose
--   latest expiry has passed holds only dead records and is unlinked (the one after the
--   live ones on every call, any other before it is written again), so purging keeps pace.
--
-- emq_purge: FCALL emq_purge 4 <slot0> .. <slot3> <limit> <position>
--   from <position> (<slot>:<cursor>, 0:0 to start) unlinks every slot whose records are all
--   dead and deletes the dead records of the others, examining at most <limit> records (HSCAN);
--   reply [records deleted, slots unlinked, the position to go on from, or '' when done]
--
-- Refusals, in the order of docs/wire.md "admit", each before any write:
--   ERR wrong number of arguments ...   key count, arity, claim/ttl/wire shape
--   EMQLAYOUT ...                       keys not of one queue's layout
--   EMQWIRE ...                         {emq}:version missing, another value or with a TTL,
--                                       where this node can read it (always standalone; in a
--                                       cluster on the node serving its slot)
--   EMQKIND ..., WRONGTYPE ...          per admission, in the reply array
--   and any refusal of EMQ.ENQUEUE where the module is loaded (EMQWIRE, ERR EMQ write-paused)

local VERSION = '3'

local WRONGTYPE = 'WRONGTYPE Operation against a key holding the wrong kind of value'
local LAYOUT2 = 'EMQLAYOUT keys must be emq:{q}:job:<id> and emq:{q}:pending'
local LAYOUT = "EMQLAYOUT keys must be one queue's emq:{q}:pending, emq:{q}:dedupe:0 to 3, then emq:{q}:job:<id> per admission"
local KIND = 'EMQKIND job id must be JOB-namespaced'
local FENCE_KEY = '{emq}:version'
local SLOTS = 4
local HEADER = '~'
local FIELD_LEN = 22
local DIGEST_LEN = 16
local CLAIM_LEN = 1 + DIGEST_LEN + FIELD_LEN
local CLAIM_SHAPE = ': claim must be m or c, then 38 base64url characters'
local M, C = 109, 99 -- the bytes of m and c (the library's load may not call string.byte)
local ID_LEN = 14

local function refuse(text)
  return redis.error_reply(text)
end

local function arity(name, why)
  return refuse("ERR wrong number of arguments for '" .. name .. "' function" .. (why or ''))
end

local function failed(reply)
  return type(reply) == 'table' and reply['err'] ~= nil
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

local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

-- Whether the server knows EMQ.ENQUEUE: nil until the first write asks, then kept for the
-- library's life (a script's life in the script family). Modules load only at server start,
-- so the answer cannot change under it; only "unknown command" or a success settles it.
local has_module = nil

-- Writes one row through the module where it is loaded: 'written', 'exists' (the module found
-- the row), false when the server has no module (the caller writes HSET + ZADD), or the
-- error reply of EMQ.ENQUEUE (its fence or paused guard; nothing written).
local function module_write(row, pending, id, payload)
  if has_module == false then return false end
  local reply = redis.pcall('EMQ.ENQUEUE', '2', row, pending, id, payload)
  if failed(reply) then
    if string.find(reply['err'], 'nknown command', 1, true) ~= nil then
      has_module = false
      return false
    end
    return reply
  end
  has_module = true
  if reply == 1 then return 'written' end
  if reply == 0 then return 'exists' end
  return refuse('ERR EMQ.ENQUEUE answered ' .. tostring(reply))
end

-- Writes the row and the pending entry after the caller's checks: nil when written, 0 when
-- the row existed, else the error reply (nothing written).
local function write_row(row, pending, id, payload)
  local through = module_write(row, pending, id, payload)
  if through == 'written' then return nil end
  if through == 'exists' then return 0 end
  if through ~= false then return through end
  if redis.call('EXISTS', row) == 1 then return 0 end
  local kind = type_of(pending)
  if kind ~= 'none' and kind ~= 'zset' then return refuse(WRONGTYPE) end
  redis.call('HSET', row, 'state', 'pending', 'attempts', '0', 'payload', payload)
  redis.call('ZADD', pending, 0, id)
  return nil
end

local function enqueue(keys, args, at)
  if #keys ~= 2 or #args - at + 1 ~= 2 then return arity('emq_enqueue') end
  local row, pending, id, payload = keys[1], keys[2], args[at], args[at + 1]
  if queue_of(row, pending, id) == nil then return refuse(LAYOUT2) end
  if string.sub(id, 1, 3) ~= 'JOB' then return refuse(KIND) end
  local written = write_row(row, pending, id, payload)
  if written == 0 then return 0 end
  if written ~= nil then return written end
  return 1
end

-- The fence (docs/wire.md, "admit", step 3) where this node can read it: a standalone server
-- always; in a cluster only the node serving the key's slot (the read of another node's slot fails,
-- and then the connector's check stands). nil when it passes or cannot be read here.
local function fence_refusal(wire)
  local held = redis.pcall('GET', FENCE_KEY)
  if failed(held) then
    if string.sub(held['err'], 1, 9) == 'WRONGTYPE' then
      return refuse('EMQWIRE wire identity unreadable on this node ({emq}:version is not a string)')
    end
    return nil
  end
  if not held then
    return refuse('EMQWIRE wire identity not installed on this node ({emq}:version missing), host expects ' .. wire)
  end
  if held ~= wire then
    return refuse('EMQWIRE wire identity mismatch: node has ' .. string.sub(held, 1, 64) .. ', host expects ' .. wire)
  end
  if redis.call('PTTL', FENCE_KEY) ~= -1 then
    return refuse('EMQWIRE wire identity not installed on this node ({emq}:version has a TTL, which counts as missing)')
  end
  return nil
end

local function record_expiry(value)
  return tonumber(string.sub(value, ID_LEN + DIGEST_LEN + 3)) or 0
end

-- Reads every slot once: the header and admission fields `fields` (one HMGET per slot).
-- Returns the latest expiry per slot (nil: no slot), the live record per field index, and
-- the slot index of each, or the WRONGTYPE reply when a slot is not a hash.
local function read_slots(slot_keys, fields, now)
  local latest, found, where = {}, {}, {}
  for s = 1, SLOTS do
    local got = redis.pcall('HMGET', slot_keys[s], HEADER, unpack(fields))
    if failed(got) then return nil, nil, nil, refuse(WRONGTYPE) end
    latest[s] = tonumber(got[1])
    if latest[s] ~= nil and latest[s] > now then
      for i = 1, #fields do
        local value = got[i + 1]
        if value and found[i] == nil and record_expiry(value) > now then
          found[i] = value
          where[i] = s
        end
      end
    end
  end
  return latest, found, where, nil
end

local function admit(keys, args, at)
  local nkeys, nargs = #keys, #args - at + 1
  if nkeys < 6 then return arity('emq_admit') end
  local n = nkeys - 5
  if nargs ~= 2 + 2 * n then return arity('emq_admit') end

  -- 1 shape
  local wire, ttl = args[at], args[at + 1]
  if string.match(wire, '^[!-~]+$') == nil or #wire > 64 then
    return arity('emq_admit', ': wire must be 1 to 64 printable characters')
  end
  if string.match(ttl, '^[1-9][0-9]*$') == nil or #ttl > 15 then
    return arity('emq_admit', ': ttl-ms must be a positive integer')
  end
  -- The kind byte per claim, then one anchored pattern test over every claim at once: callgrind
  -- counted 2.3k server instructions per admission for it against 3.8k for a string.match per
  -- claim (an unanchored search for a bad character cost 10k). m and c pass the class too.
  local claims = {}
  for i = 1, n do
    local claim = args[at + 2 * i]
    local kind = string.byte(claim, 1)
    if #claim ~= CLAIM_LEN or (kind ~= M and kind ~= C) then
      return arity('emq_admit', CLAIM_SHAPE)
    end
    claims[i] = claim
  end
  if not string.find(table.concat(claims), '^[A-Za-z0-9_%-]*$') then
    return arity('emq_admit', CLAIM_SHAPE)
  end
  local fields = {}
  for i = 1, n do fields[i] = string.sub(claims[i], 2 + DIGEST_LEN) end

  -- 2 layout
  local pending = keys[1]
  local queue = string.match(pending, '^emq:{([^{}]+)}:pending$')
  if queue == nil then return refuse(LAYOUT) end
  local prefix = 'emq:{' .. queue .. '}:'
  local records = prefix .. 'dedupe:'
  local slot_keys = {}
  for s = 1, SLOTS do
    slot_keys[s] = keys[1 + s]
    if slot_keys[s] ~= records .. (s - 1) then return refuse(LAYOUT) end
  end
  local jobs = prefix .. 'job:'
  local from = #jobs + 1
  local ids = {}
  for i = 1, n do
    local row = keys[5 + i]
    if string.sub(row, 1, from - 1) ~= jobs then return refuse(LAYOUT) end
    ids[i] = string.sub(row, from)
  end

  -- 3 fence, where this node can read it
  local fence = fence_refusal(wire)
  if fence then return fence end

  -- 5 records: the live record of each key
  local now = now_ms()
  local latest, found, where, wrong = read_slots(slot_keys, fields, now)
  local replies = {}
  if wrong then
    for i = 1, n do replies[i] = wrong end
    return replies
  end
  local any_row = redis.call('EXISTS', unpack(keys, 6, 5 + n)) > 0

  local t = tonumber(ttl)
  local window = math.floor((t + 1) / 2)
  local expiry = now + t
  local tail = ':' .. string.format('%d', expiry)
  local target = math.floor(expiry / window) % SLOTS + 1
  local fresh, new_rows, record_args, zadd_args = {}, {}, {}, {}
  local pending_ok = nil
  local wrote = false
  local dup_touch = nil

  local function record(i, id)
    local value = id .. ':' .. string.sub(claims[i], 2, 1 + DIGEST_LEN) .. tail
    fresh[fields[i]] = value
    record_args[#record_args + 1] = fields[i]
    record_args[#record_args + 1] = value
  end

  -- Writes admission i's row; nil when written, else its error reply.
  local function write(i, id, payload)
    local through = module_write(keys[5 + i], pending, id, payload)
    if through == 'exists' then return refuse('ERR EMQ.ENQUEUE found a row this call saw absent') end
    if through ~= 'written' and through ~= false then return through end
    if through == false then
      if pending_ok == nil then
        local kind = type_of(pending)
        pending_ok = kind == 'none' or kind == 'zset'
      end
      if not pending_ok then return refuse(WRONGTYPE) end
      redis.call('HSET', keys[5 + i], 'state', 'pending', 'attempts', '0', 'payload', payload)
      zadd_args[#zadd_args + 1] = '0'
      zadd_args[#zadd_args + 1] = id
    end
    new_rows[id] = true
    wrote = true
    return nil
  end

  for i = 1, n do
    local id, payload = ids[i], args[at + 1 + 2 * i]
    -- 4 kind
    if string.sub(id, 1, 3) ~= 'JOB' then
      replies[i] = refuse(KIND)
    elseif fresh[fields[i]] or found[i] then
      local value = fresh[fields[i]] or found[i]
      local earlier = string.sub(value, 1, ID_LEN)
      if string.sub(value, ID_LEN + 2, ID_LEN + 1 + DIGEST_LEN) == string.sub(claims[i], 2, 1 + DIGEST_LEN) then
        replies[i] = { 0, earlier }
        if not fresh[fields[i]] and dup_touch == nil then
          dup_touch = function() redis.call('HSET', slot_keys[where[i]], fields[i], value) end
        end
      else
        replies[i] = { -1, earlier }
      end
    elseif new_rows[id] or (any_row and redis.call('EXISTS', keys[5 + i]) == 1) then
      if string.byte(args[at + 2 * i], 1) == M then
        replies[i] = { 2, id }
      else
        -- A caller's id whose row exists without a record (written by another host, or
        -- before records existed): the row's payload decides.
        local stored = redis.pcall('HGET', keys[5 + i], 'payload')
        if failed(stored) then
          replies[i] = refuse(WRONGTYPE)
        elseif stored == payload then
          record(i, id)
          replies[i] = { 0, id }
        else
          replies[i] = { -1, id }
        end
      end
    else
      local refused = write(i, id, payload)
      if refused then
        replies[i] = refused
      else
        record(i, id)
        replies[i] = { 1, id }
      end
    end
  end

  if #zadd_args > 0 then redis.call('ZADD', pending, unpack(zadd_args)) end
  if #record_args > 0 then
    local previous = latest[target]
    -- A slot whose every record is dead is emptied before it takes new ones.
    if previous ~= nil and previous <= now then
      redis.call('UNLINK', slot_keys[target])
      previous = nil
    end
    record_args[#record_args + 1] = HEADER
    record_args[#record_args + 1] = string.format('%d', math.max(previous or 0, expiry))
    redis.call('HSET', slot_keys[target], unpack(record_args))
    wrote = true
  end
  -- The slot after the live ones: unlinked once all its records are dead.
  local after = (math.floor(now / window) + 3) % SLOTS + 1
  if after ~= target and latest[after] ~= nil and latest[after] <= now then
    redis.call('UNLINK', slot_keys[after])
    wrote = true
  end
  if not wrote and dup_touch then dup_touch() end
  return replies
end

-- Examines at most `limit` records, from `position` (`<slot>:<cursor>`, 0:0 to start).
local function purge(keys, args, at)
  if #keys ~= SLOTS or #args - at + 1 ~= 2 then return arity('emq_purge') end
  local queue = string.match(keys[1], '^emq:{([^{}]+)}:dedupe:0$')
  if queue == nil then return refuse(LAYOUT) end
  for s = 1, SLOTS do
    if keys[s] ~= 'emq:{' .. queue .. '}:dedupe:' .. (s - 1) then return refuse(LAYOUT) end
  end
  local limit = tonumber(args[at])
  local slot, cursor = string.match(args[at + 1], '^([0-3]):([0-9]+)$')
  if limit == nil or limit < 1 or limit ~= math.floor(limit) or slot == nil then
    return arity('emq_purge', ': limit must be a positive integer, position <slot>:<cursor>')
  end
  local now = now_ms()
  local deleted, unlinked, examined = 0, 0, 0
  local s = tonumber(slot) + 1
  while s <= SLOTS do
    local kind = type_of(keys[s])
    if kind ~= 'none' and kind ~= 'hash' then return refuse(WRONGTYPE) end
    local latest = kind == 'hash' and tonumber(redis.call('HGET', keys[s], HEADER)) or nil
    if kind == 'hash' and (latest == nil or latest <= now) then
      -- Every record of the slot is dead: one unlink, whatever its size.
      deleted = deleted + redis.call('HLEN', keys[s]) - (latest and 1 or 0)
      redis.call('UNLINK', keys[s])
      unlinked = unlinked + 1
      cursor = '0'
    elseif kind == 'hash' then
      repeat
        local page = redis.call('HSCAN', keys[s], cursor, 'COUNT', math.min(100, limit - examined))
        cursor = page[1]
        local dead = {}
        for j = 1, #page[2], 2 do
          local field, value = page[2][j], page[2][j + 1]
          examined = examined + 1
          if field ~= HEADER and record_expiry(value) <= now then dead[#dead + 1] = field end
        end
        if #dead > 0 then
          redis.call('HDEL', keys[s], unpack(dead))
          deleted = deleted + #dead
        end
      until cursor == '0' or examined >= limit
      if cursor ~= '0' then return { deleted, unlinked, (s - 1) .. ':' .. cursor } end
    end
    s = s + 1
    cursor = '0'
    if examined >= limit and s <= SLOTS then return { deleted, unlinked, (s - 1) .. ':0' } end
  end
  return { deleted, unlinked, '' }
end

local function version()
  return VERSION
end

if redis.register_function then
  redis.register_function('emq_enqueue', function(keys, args) return enqueue(keys, args, 1) end)
  redis.register_function({
    function_name = 'emq_admit',
    callback = function(keys, args) return admit(keys, args, 1) end,
    -- The fence lives in its own slot: read it where this node serves that slot too.
    flags = { 'allow-cross-slot-keys' },
  })
  redis.register_function('emq_purge', function(keys, args) return purge(keys, args, 1) end)
  redis.register_function({
    function_name = 'emq_version',
    callback = version,
    flags = { 'no-writes' },
  })
else
  local call = ARGV[1]
  if call == 'admit' then return admit(KEYS, ARGV, 2) end
  if call == 'enqueue' then return enqueue(KEYS, ARGV, 2) end
  if call == 'purge' then return purge(KEYS, ARGV, 2) end
  if call == 'version' then return version() end
  return refuse("ERR unknown emq call '" .. tostring(call) .. "': use admit, enqueue, purge or version")
end
