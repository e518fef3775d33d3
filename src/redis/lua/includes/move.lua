--[[
  Moves a row between statuses, keeping the campaign's counters (n:<status>) in step.
  Sets rec.s; the caller writes the record.

  Defines: move(campaignKey, rec, status)
]]
local function move(campaignKey, rec, status)
  redis.call('HINCRBY', campaignKey, 'n:' .. rec.s, -1)
  redis.call('HINCRBY', campaignKey, 'n:' .. status, 1)
  rec.s = status
end
