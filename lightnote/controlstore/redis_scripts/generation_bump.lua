-- Move a generation hash to its next generation: every mark set under an earlier one is
-- void from now on (readers compare a mark with the current "gen").
--
-- KEYS[1]  the hash (see generation_mark.lua)
-- ARGV[1]  ttl in milliseconds for the whole hash (integer > 0)
--
-- Returns  the new generation

local ttl_ms = tonumber(ARGV[1])
if ttl_ms == nil or ttl_ms <= 0 or ttl_ms ~= math.floor(ttl_ms) then
  return redis.error_reply('ERR generation_bump: ttl_ms must be a positive integer')
end
local generation = redis.call('HINCRBY', KEYS[1], 'gen', 1)
redis.call('PEXPIRE', KEYS[1], ttl_ms)
return generation
