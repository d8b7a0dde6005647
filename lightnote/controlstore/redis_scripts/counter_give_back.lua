-- Give back one unit taken from a windowed counter (counter_take.lua, or record_transition.lua
-- with a limit) by a request that then did not go on.
--
-- KEYS[1]  the counter of one window
--
-- Returns  the count after the call; nothing is written when the counter is gone (its
--          window ended) or already at zero, so a late give-back never creates a key
--          without a TTL nor a negative count.

local count = tonumber(redis.call('GET', KEYS[1]) or '0') or 0
if count <= 0 then
  return 0
end
return redis.call('DECR', KEYS[1])
