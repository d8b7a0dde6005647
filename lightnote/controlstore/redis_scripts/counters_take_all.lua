-- Read a hash of counters and delete it in one atomic step, so every increment is read by
-- exactly one taker (an increment after this call starts a new hash).
--
-- KEYS[1]  the counters hash, e.g. ln:audit:{repeats}
--
-- Returns  {field, value, ...}  the counters (HGETALL), empty when there were none

local counters = redis.call('HGETALL', KEYS[1])
if #counters > 0 then
  redis.call('DEL', KEYS[1])
end
return counters
