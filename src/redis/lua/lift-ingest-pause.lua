#!lua
--[[
  A `send --campaign` that continues an interrupted ingest lifts the pause the
  interruption left, and only that one (the stored reason is the pause's own: a pause an
  operator or a halting code set since then stays). The brake's window starts empty again.
  A template's hold set meanwhile stays: the campaign stays paused, with the template's reason.

  Input:
    KEYS[1] campaign   hash     <scope>:campaign:<id>
    KEYS[2] recent     string   <scope>:campaign:<id>:recent (the brake's bit ring)

    ARGV: none

  Output:
    1 if lifted, else 0
]]
local f = redis.call('HMGET', KEYS[1], 'ingestInterrupted', 'paused', 'pausedReason', 'cancelled', 'templateHold')
if not f[1] or f[2] ~= '1' or f[3] ~= f[1] or f[4] == '1' then return 0 end
if f[5] then
  redis.call('HSET', KEYS[1], 'pausedReason', f[5])
  return 1
end
redis.call('HDEL', KEYS[1], 'paused', 'pausedReason', 'pausedAt', 'recentFails', 'recentSends')
redis.call('DEL', KEYS[2])
return 1
