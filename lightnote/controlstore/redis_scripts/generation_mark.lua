-- Set a mark in a generation hash, only if the generation is still the one the caller read
-- before it computed the mark: a mark never outlives a change it did not see.
--
-- KEYS[1]  the hash, e.g. ln:listcount:{todos.todo:42}; field "gen" is the generation
--          (absent: "0"), bumped by generation_bump.lua
-- ARGV[1]  the mark's field (never "gen")
-- ARGV[2]  the generation the caller read before computing the mark
-- ARGV[3]  ttl in milliseconds for the whole hash (integer > 0)
--
-- Returns  1 marked; 0 refused (the generation moved: the mark may be stale)

local ttl_ms = tonumber(ARGV[3])
if ARGV[1] == 'gen' or ttl_ms == nil or ttl_ms <= 0 or ttl_ms ~= math.floor(ttl_ms) then
  return redis.error_reply('ERR generation_mark: bad field or ttl_ms')
end
local current = redis.call('HGET', KEYS[1], 'gen') or '0'
if current ~= ARGV[2] then
  return 0
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('PEXPIRE', KEYS[1], ttl_ms)
return 1
