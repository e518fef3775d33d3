#!lua
--[[
  Purge's step over the message-ID index: removes each wamid whose entry still points at
  this campaign's row (an entry another campaign owns stays).

  Input:
    KEYS[1] wamids     hash     <scope>:wamids (message ID → "campaign/row")

    ARGV[1] campaign ID
    (then a pair per row with a wamid, from ARGV[2] on:)
    ARGV[2] wamid
    ARGV[3] row

  Output:
    how many entries it removed
]]
local removed = 0
for i = 2, #ARGV, 2 do
  if redis.call('HGET', KEYS[1], ARGV[i]) == ARGV[1] .. '/' .. ARGV[i + 1] then
    redis.call('HDEL', KEYS[1], ARGV[i])
    removed = removed + 1
  end
end
return removed
