-- Take one unit of a windowed counter unless it has reached its limit: a rate limit's
-- check and its count in one atomic step.
--
-- KEYS[1]  the counter of one window, e.g. ln:rate:agent.claims:42:29468133
-- ARGV[1]  limit: the most units the window allows (integer >= 0)
-- ARGV[2]  ttl in milliseconds, set when the window's first unit is taken (integer > 0):
--          the rest of the window, so the counter disappears when the window ends
--
-- Returns  {1, count}   taken; count is the number taken in this window, this one included
--          {0, pttl}    refused: the limit is reached; pttl is the window's remaining
--                       milliseconds (nothing is written)
-- Errors   "ERR ..." on bad arguments, raised before any write.

local limit = tonumber(ARGV[1])
local ttl_ms = tonumber(ARGV[2])
if limit == nil or limit < 0 or limit ~= math.floor(limit) then
  return redis.error_reply('ERR counter_take: limit must be an integer >= 0')
end
if ttl_ms == nil or ttl_ms <= 0 or ttl_ms ~= math.floor(ttl_ms) then
  return redis.error_reply('ERR counter_take: ttl_ms must be a positive integer')
end

local count = tonumber(redis.call('GET', KEYS[1]) or '0')
if count >= limit then
  return {0, redis.call('PTTL', KEYS[1])}
end
count = redis.call('INCR', KEYS[1])
if count == 1 then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return {1, count}
