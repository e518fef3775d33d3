#!lua
--[[
  Reads the message-ID index: the row each message ID belongs to, as apply-statuses.lua
  finds it (includes/wamid-index.lua knows the index's layout; nothing else does).

  Input:
    KEYS[1] wamids     hash     <scope>:wamids (the message-ID index: includes/wamid-index.lua)

    then 1 per message ID, from ARGV[1] on:
    ARGV[1] wamid  message ID

  Output:
    per message ID, "campaign/row", or '' when the index has none
]]

-- Includes
--- @include "wamid-index"

local out = {}
for i = 1, #ARGV do
  local campaignId, row = wamidWhere(KEYS[1], ARGV[i])
  if campaignId then out[i] = campaignId .. '/' .. row else out[i] = '' end
end
return out
