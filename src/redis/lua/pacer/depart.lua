#!lua
--[[
  The pacer's correction for a send that left late. `admit` stamps a send when it lets it
  through; a send that then waits (a stalled event loop, a wait for a connection) leaves
  later and would bunch at the receiver with the sends admitted after it. Moving its stamp
  by how late it left (beyond a small allowance the guard covers) makes every later
  admission count it where it really is, so the ceiling holds for departures, not just for
  admissions. A stamp never moves past the time now: the correction is asked after the send
  left, so now is no earlier than its departure. A stamp moved past its departure would be
  as wrong as one left before it: a receiver's second that ends just after the send holds it,
  while the log counts it in the next window, which then lets one more through. How late it
  left is measured from its ask, so an ask that waited before Redis stamped it (a failover, a
  reconnect, a busy Redis) would otherwise move the stamp that far past its departure. One
  already trimmed (the send left more than a window late) is put back at the time now.
  Called with one key, or two when tests keep every admission.
  Input:
    KEYS[1] sent       zset     <scope>:pacer:<number>:sent (member → admitted at, µs)
    KEYS[2] audit      zset     optional: every admission, never trimmed (tests)
    ARGV[1] member  the send, as admitted
    ARGV[2] late    how far to move it, µs: how late it left, beyond the allowance
    ARGV[3] now     optional: the time now (µs) instead of Redis's TIME; a test's simulated clock
  Output:
    the send's stamp now (µs, a decimal string)
]]
local late = tonumber(ARGV[2])
local now = tonumber(ARGV[3])
if not now then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000000 + tonumber(t[2])
end
local stamp = redis.call('ZSCORE', KEYS[1], ARGV[1])
if stamp then
  stamp = tonumber(stamp)
  stamp = math.max(stamp, math.min(stamp + late, now))
else
  stamp = now
end
local score = string.format('%.0f', stamp)
redis.call('ZADD', KEYS[1], score, ARGV[1])
redis.call('PEXPIRE', KEYS[1], 2000 + math.ceil(math.max(0, stamp - now) / 1000))
if KEYS[2] then redis.call('ZADD', KEYS[2], score, ARGV[1]) end
return score
