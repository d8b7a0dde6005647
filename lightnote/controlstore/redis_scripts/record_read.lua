-- Read a control record together with the server's clock: one round trip, one slot.
--
-- KEYS[1]   the record hash, e.g. ln:card:{<sha256 of the token>}
-- (no ARGV)
--
-- Returns {seconds, microseconds, field, value, ...}: Redis TIME, then the record's fields
-- (HGETALL; none when the record is unknown or expired). The clock lets a caller name a
-- deadline in the server's own time (record_transition.lua's ARGV[19]), whatever the
-- application server's clock says.

local server_time = redis.call('TIME')
local reply = {server_time[1], server_time[2]}
local fields = redis.call('HGETALL', KEYS[1])
for i = 1, #fields do
  reply[#reply + 1] = fields[i]
end
return reply
