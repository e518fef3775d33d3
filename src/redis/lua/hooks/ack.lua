#!lua
--[[
  A batch the receiver acknowledged: its entries leave the outbox, counted delivered (only
  those still there: two replicas that both sent a batch count it once), and the lag of its
  oldest event is recorded.

  Input:
    KEYS[1] figures  hash     <prefix>:{hook:<name>}:figures
    KEYS[2] outbox   stream   <prefix>:{hook:<name>}:outbox

    ARGV[1] lag      seconds from the batch's oldest event to its acknowledgement
    then 1 per entry, from ARGV[2] on:
    ARGV[2] entry    an outbox entry ID
  Output:
    the number of entries deleted
]]
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local deleted = 0
for i = 2, #ARGV do
  deleted = deleted + redis.call('XDEL', KEYS[2], ARGV[i])
end
if deleted > 0 then
  redis.call('HINCRBY', KEYS[1], 'delivered', deleted)
  redis.call('HSET', KEYS[1], 'lag', ARGV[1])
end
return deleted
