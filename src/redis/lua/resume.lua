#!lua
--[[
  Lifts a pause: the parked rows are in the backlog, and the feeder feeds them again. The
  brake's window starts empty again: old failures must not re-pause at once. The operator's
  resume lifts a template's hold too (they may know the template is active again before its
  webhook comes); while it is still paused, the next send's 132015 / 132016 pauses it again.

  Input:
    KEYS[1] campaign   hash     <scope>:campaign:<id>
    KEYS[2] recent     string   <scope>:campaign:<id>:recent (the brake's bit ring)

    ARGV: none

  Output:
    'resumed', or why not: 'missing', 'cancelled', 'not-paused'
]]
local f = redis.call('HMGET', KEYS[1], 'definition', 'cancelled', 'paused')
if not f[1] then return 'missing' end
if f[2] == '1' then return 'cancelled' end
if f[3] ~= '1' then return 'not-paused' end
redis.call('HDEL', KEYS[1], 'paused', 'pausedReason', 'pausedAt', 'recentFails', 'recentSends', 'templateHold')
redis.call('DEL', KEYS[2])
return 'resumed'
