#!lua
--[[
  A group job (a job of several rows, fed by feed.lua) is done: each of its rows has had its
  turn (an answer, a park, a newer job, a claim another job made). Its entry leaves the window
  and its rows leave the groups hash, so the room counts them no more. Safe to repeat: a group
  already done changes nothing.

  Input:
    KEYS[1] window     zset     <scope>:feed:<number>:window (job ID → ms fed)
    KEYS[2] groups     hash     <scope>:feed:<number>:groups (group ID → its rows)
    KEYS[3] group-rows string   <scope>:feed:<number>:group-rows (the rows those groups hold)

    ARGV[1] group  the group's ID, g.<first row's job ID>.<rows>

  Output:
    1 when this call ended the group, 0 when it was already done
]]
redis.call('ZREM', KEYS[1], ARGV[1])
if redis.call('HDEL', KEYS[2], ARGV[1]) == 0 then return 0 end
local rows = tonumber(string.match(ARGV[1], '%.(%d+)$')) or 0
if redis.call('DECRBY', KEYS[3], rows) <= 0 then redis.call('DEL', KEYS[3]) end
return 1
