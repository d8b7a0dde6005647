-- Create a control record if it is absent; otherwise return the existing one untouched.
--
-- KEYS[1]  the record hash, e.g. ln:card:{<sha256 of the token>}
-- ARGV[1]  initial state (non-empty)
-- ARGV[2]  record: the immutable JSON string (stored as given, never decoded here)
-- ARGV[3]  ttl in milliseconds (integer > 0)
-- ARGV[4..] extra field/value pairs (an even count)
--
-- Returns  {1}                          created
--          {0, field, value, ...}       already present: its current fields (HGETALL)
-- Errors   "ERR ..." on bad arguments, raised before any write.

local state = ARGV[1]
local record = ARGV[2]
local ttl_ms = tonumber(ARGV[3])

if state == nil or state == '' then
  return redis.error_reply('ERR record_create: state is required')
end
if record == nil then
  return redis.error_reply('ERR record_create: record is required')
end
if ttl_ms == nil or ttl_ms <= 0 or ttl_ms ~= math.floor(ttl_ms) then
  return redis.error_reply('ERR record_create: ttl_ms must be a positive integer')
end
if (#ARGV - 3) % 2 ~= 0 then
  return redis.error_reply('ERR record_create: extra fields must come in pairs')
end

local existing = redis.call('HGETALL', KEYS[1])
if #existing > 0 then
  local reply = {0}
  for i = 1, #existing do
    reply[#reply + 1] = existing[i]
  end
  return reply
end

local fields = {'state', state, 'record', record, 'attempt', '', 'lease_until', '0'}
for i = 4, #ARGV, 2 do
  fields[#fields + 1] = ARGV[i]
  fields[#fields + 1] = ARGV[i + 1]
end
redis.call('HSET', KEYS[1], unpack(fields))
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return {1}
