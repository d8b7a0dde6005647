-- Move a control record from one of several states to another: one compare-and-set.
--
-- KEYS[1]   the record hash, e.g. ln:card:{<sha256 of the token>}
-- KEYS[2]   optional: a sorted-set index of records (e.g. the running cards), changed by this
--           call only when the transition applies (codes 1 and 2). Named only on a single
--           Redis: on Cluster the index lives in another slot, and the caller changes it
--           itself after reading the reply.
-- KEYS[3]   optional: a rate limit's windowed counter (as counter_take.lua's KEYS[1]), with
--           ARGV[16..17]: one unit is taken only when this call transitions (code 1), and a
--           transition the limit refuses writes nothing (code 3). Named only on a single
--           Redis (another slot on Cluster); KEYS[2] is then named too, even unused.
-- ARGV[1]   from_states: allowed current states, separated by single spaces
-- ARGV[2]   to_state (non-empty)
-- ARGV[3]   attempt id, '' for none; stored on success
-- ARGV[4]   '1': the current attempt must equal ARGV[3] (compare-and-set on the attempt)
-- ARGV[5]   expected current outcome_kind, '' for any
-- ARGV[6]   lease: '' keeps lease_until, '0' clears it, N sets it to now_ms + N
-- ARGV[7]   ttl in milliseconds: '0' keeps the key's TTL, N sets it (PEXPIRE)
-- ARGV[8]   '1': store ARGV[9] as outcome, ARGV[10] as outcome_kind, now_ms as settled_at
-- ARGV[9]   outcome (a JSON string, stored as given)
-- ARGV[10]  outcome_kind
-- ARGV[11]  '1': refuse while the current lease is live (lease_until > now_ms), so a record
--           whose holder vanished can be taken over once its lease has passed
-- ARGV[12]  now_ms: the caller's clock in milliseconds since the epoch
-- ARGV[13]  the index change with KEYS[2]: 'add' (ZADD ARGV[14] with score ARGV[15]),
--           'remove' (ZREM ARGV[14]) or '' for none
-- ARGV[14]  the index member
-- ARGV[15]  the index score (an integer, for 'add')
-- ARGV[16]  the limit with KEYS[3]: the most units its window allows (integer >= 0), '' for
--           no limit
-- ARGV[17]  the limit's ttl in milliseconds, set when the window's first unit is taken
--           (integer > 0; '' without a limit)
-- ARGV[18]  '1': the reply carries the record's fields after the call; '0': only the code
--           (and the pttl of code 3), for a caller that reads nothing else
-- ARGV[19]  the attempt's deadline in milliseconds of the server's clock (Redis TIME), '' for
--           none: a transition that would apply once the deadline has passed is refused as
--           late (code 4), so a call that reaches Redis after its request gave up (a stalled
--           server, a queued retry) writes nothing
-- ARGV[20..] optional pairs (name, value): the record JSON (field ``record``) must hold each
--           name at its top level with exactly that string value, or nothing is written
--           (refused). The JSON is only decoded to read it; its stored bytes stay as they are.
--
-- Returns {code, field, value, ...}: code then the record's fields after the call (HGETALL;
-- none with ARGV[18] '0')
--    1  transitioned
--    2  already done by this attempt: the record is in to_state under the same attempt (and,
--       when an outcome is given, with that same outcome and kind), e.g. a claim the client library
--       re-sent after losing the reply. Nothing is written.
--    0  refused: the state, attempt, outcome kind, lease or an expected record value did
--       not match (a record JSON that cannot be decoded matches nothing). Nothing is written.
--   -1  missing (unknown or expired); no fields follow.
--    3  limited: every condition held but the limit of KEYS[3] is reached. Nothing is written
--       (no state, no index entry, no unit). Returns {3, pttl, field, value, ...}: pttl is the
--       window's remaining milliseconds (as counter_take.lua's), then the fields.
--    4  late: every condition held but the deadline ARGV[19] has passed. Nothing is written.
-- Errors "ERR ..." on bad arguments, raised before any write (Redis never rolls back a script).

local from_states = ARGV[1]
local to_state = ARGV[2]
local attempt = ARGV[3]
local require_attempt = ARGV[4] == '1'
local expect_kind = ARGV[5]
local lease_arg = ARGV[6]
local ttl_ms = tonumber(ARGV[7])
local has_outcome = ARGV[8] == '1'
local outcome = ARGV[9]
local outcome_kind = ARGV[10]
local takeover = ARGV[11] == '1'
local now_ms = tonumber(ARGV[12])

local function is_count(value)
  return value ~= nil and value >= 0 and value == math.floor(value)
end

if #ARGV < 19 or (#ARGV - 19) % 2 ~= 0 then
  return redis.error_reply('ERR record_transition: expected 19 arguments and name/value pairs')
end
local deadline_ms = nil
if ARGV[19] ~= '' then
  deadline_ms = tonumber(ARGV[19])
  if not is_count(deadline_ms) then
    return redis.error_reply('ERR record_transition: a deadline must be an integer >= 0')
  end
end
local with_fields = ARGV[18] == '1'
if not with_fields and ARGV[18] ~= '0' then
  return redis.error_reply('ERR record_transition: ARGV[18] is 1 (reply with fields) or 0')
end
local limit = nil
local limit_ttl_ms = nil
if ARGV[16] ~= '' then
  limit = tonumber(ARGV[16])
  limit_ttl_ms = tonumber(ARGV[17])
  if not is_count(limit) then
    return redis.error_reply('ERR record_transition: a limit must be an integer >= 0')
  end
  if not is_count(limit_ttl_ms) or limit_ttl_ms == 0 then
    return redis.error_reply('ERR record_transition: a limit ttl_ms must be a positive integer')
  end
  if #KEYS < 3 then
    return redis.error_reply('ERR record_transition: a limit needs its counter as KEYS[3]')
  end
elseif ARGV[17] ~= '' then
  return redis.error_reply('ERR record_transition: a limit ttl_ms needs a limit')
end
local index_op = ARGV[13]
if index_op ~= '' and index_op ~= 'add' and index_op ~= 'remove' then
  return redis.error_reply('ERR record_transition: the index change is add, remove or empty')
end
if index_op ~= '' and (#KEYS < 2 or ARGV[14] == '') then
  return redis.error_reply('ERR record_transition: an index change needs KEYS[2] and a member')
end
if index_op == 'add' and not is_count(tonumber(ARGV[15])) then
  return redis.error_reply('ERR record_transition: an index score must be an integer >= 0')
end
if to_state == '' or from_states == '' then
  return redis.error_reply('ERR record_transition: from_states and to_state are required')
end
if not is_count(now_ms) or not is_count(ttl_ms) then
  return redis.error_reply('ERR record_transition: now_ms and ttl_ms must be integers >= 0')
end
local lease_ms = nil
if lease_arg ~= '' then
  lease_ms = tonumber(lease_arg)
  if not is_count(lease_ms) then
    return redis.error_reply('ERR record_transition: lease must be empty or an integer >= 0')
  end
end
if require_attempt and attempt == '' then
  return redis.error_reply('ERR record_transition: require_attempt needs an attempt id')
end
if has_outcome and outcome_kind == '' then
  return redis.error_reply('ERR record_transition: an outcome needs an outcome_kind')
end

-- The reply; the index changes only with a transition that applies (codes 1 and 2).
local function reply_with(code, pttl)
  local applied = code == 1 or code == 2
  if index_op == 'add' and applied then
    redis.call('ZADD', KEYS[2], ARGV[15], ARGV[14])
  elseif index_op == 'remove' and applied then
    redis.call('ZREM', KEYS[2], ARGV[14])
  end
  local reply = {code}
  if pttl ~= nil then
    reply[2] = pttl
  end
  if not with_fields then
    return reply
  end
  local fields = redis.call('HGETALL', KEYS[1])
  for i = 1, #fields do
    reply[#reply + 1] = fields[i]
  end
  return reply
end

local current = redis.call('HMGET', KEYS[1], 'state', 'attempt', 'outcome_kind', 'lease_until',
  'outcome')
local state = current[1]
if not state then
  return {-1}
end
local current_attempt = current[2] or ''
local current_kind = current[3] or ''
local lease_until = tonumber(current[4] or '0') or 0
local current_outcome = current[5]

if attempt ~= '' and state == to_state and current_attempt == attempt
    and (not has_outcome or (current_outcome == outcome and current_kind == outcome_kind)) then
  return reply_with(2)
end

local allowed = false
for candidate in string.gmatch(from_states, '%S+') do
  if candidate == state then
    allowed = true
  end
end
if not allowed then
  return reply_with(0)
end
if require_attempt and current_attempt ~= attempt then
  return reply_with(0)
end
if expect_kind ~= '' and current_kind ~= expect_kind then
  return reply_with(0)
end
if takeover and lease_until > now_ms then
  return reply_with(0)
end
if #ARGV > 19 then
  local decoded_ok, record = pcall(cjson.decode, redis.call('HGET', KEYS[1], 'record') or '')
  if not decoded_ok or type(record) ~= 'table' then
    return reply_with(0)
  end
  for i = 20, #ARGV, 2 do
    if record[ARGV[i]] ~= ARGV[i + 1] then
      return reply_with(0)
    end
  end
end
if deadline_ms ~= nil then
  local server_time = redis.call('TIME')
  local server_ms = tonumber(server_time[1]) * 1000 + math.floor(tonumber(server_time[2]) / 1000)
  if server_ms > deadline_ms then
    return reply_with(4)
  end
end
if limit ~= nil then
  local count = tonumber(redis.call('GET', KEYS[3]) or '0')
  if count == nil then
    return redis.error_reply('ERR record_transition: the limit counter is not a number')
  end
  if count >= limit then
    return reply_with(3, redis.call('PTTL', KEYS[3]))
  end
end

-- Every check passed: only writes from here on.
local fields = {'state', to_state}
if attempt ~= '' then
  fields[#fields + 1] = 'attempt'
  fields[#fields + 1] = attempt
end
if lease_ms ~= nil then
  fields[#fields + 1] = 'lease_until'
  if lease_ms == 0 then
    fields[#fields + 1] = '0'
  else
    fields[#fields + 1] = string.format('%.0f', now_ms + lease_ms)
  end
end
if has_outcome then
  fields[#fields + 1] = 'outcome'
  fields[#fields + 1] = outcome
  fields[#fields + 1] = 'outcome_kind'
  fields[#fields + 1] = outcome_kind
  fields[#fields + 1] = 'settled_at'
  fields[#fields + 1] = string.format('%.0f', now_ms)
end
redis.call('HSET', KEYS[1], unpack(fields))
if ttl_ms > 0 then
  redis.call('PEXPIRE', KEYS[1], string.format('%.0f', ttl_ms))
end
if limit ~= nil and redis.call('INCR', KEYS[3]) == 1 then
  redis.call('PEXPIRE', KEYS[3], string.format('%.0f', limit_ttl_ms))
end
return reply_with(1)
