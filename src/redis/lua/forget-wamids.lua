#!lua
--[[
  Purge's step over the message-ID index: removes each wamid whose entry still points at
  this campaign's row (an entry another campaign owns stays).

  Input:
    KEYS[1] wamids     hash     <scope>:wamids (the message-ID index: includes/wamid-index.lua)

    ARGV[1] campaign-id  campaign ID
    then 2 per row with a wamid, from ARGV[2] on:
    ARGV[2] wamid        a message ID
    ARGV[3] row          its row

  Output:
    how many entries it removed
]]

-- Includes
--- @include "wamid-index"

local removed = 0
for i = 2, #ARGV, 2 do
  removed = removed + forgetWamid(KEYS[1], ARGV[i], ARGV[1], ARGV[i + 1])
end
return removed
