#!lua
--[[
  The pacer's second step, the ceiling. A slot can be reached late (a busy event loop fires
  timers late), and a late send bunches with the next ones. So at the moment of sending, a
  sliding log of the last window's dispatches must hold fewer than `rate`; otherwise wait for
  the oldest to age out. The member's own earlier stamp is dropped first, so a send can be
  stamped again. A send that leaves late has its stamp moved afterwards (depart.lua). Called
  with one key, or two when tests keep every admission (the caller passes the number of keys).

  Input:
    KEYS[1] sent       zset     <scope>:pacer:<number>:sent (member → admitted at, µs)
    KEYS[2] audit      zset     optional: every admission, never trimmed (tests)

    ARGV[1] rate: sends allowed per window
    ARGV[2] member: unique per send
    ARGV[3] window (µs)
    ARGV[4] optional: the time now (µs) instead of Redis's TIME; a test's simulated clock

  Output:
    the wait before asking again (µs, a decimal string); '0' = admitted, go
]]
local now = tonumber(ARGV[4])
if not now then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000000 + tonumber(t[2])
end
local window = tonumber(ARGV[3])
redis.call('ZREM', KEYS[1], ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', string.format('%.0f', now - window))
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then
  local oldest = tonumber(redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')[2])
  return string.format('%.0f', oldest + window - now + 1)
end
redis.call('ZADD', KEYS[1], string.format('%.0f', now), ARGV[2])
redis.call('PEXPIRE', KEYS[1], 2000)
if KEYS[2] then redis.call('ZADD', KEYS[2], string.format('%.0f', now), ARGV[2]) end
return '0'
