#!lua
--[[
  Moves the start of a campaign that has not started.

  Input:
    KEYS[1] campaign   hash     <scope>:campaign:<id>

    ARGV[1] starts-at  new start (ms)

  Output:
    'rescheduled', or why not: 'missing', 'cancelled', 'completed', 'started'
]]
local f = redis.call('HMGET', KEYS[1], 'definition', 'cancelled', 'finishedAt', 'startedAt')
if not f[1] then return 'missing' end
if f[2] == '1' then return 'cancelled' end
if f[3] then return 'completed' end
if f[4] then return 'started' end
redis.call('HSET', KEYS[1], 'startsAt', ARGV[1])
return 'rescheduled'
