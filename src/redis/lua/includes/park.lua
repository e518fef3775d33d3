--[[
  Parks a row for the next resume: a new job number, the record written, and back to the
  front of the backlog (the campaign joins its number's active set again).

  Defines: park(campaignKey, rowsKey, pendingKey, activeKey, campaignId, row, rec)
]]

-- Includes
--- @include "row-codec"
--- @include "row-store"
--- @include "backlog"

local function park(campaignKey, rowsKey, pendingKey, activeKey, campaignId, row, rec)
  rec.k = (rec.k or 0) + 1
  storeRow(rowsKey, row, encodeRow(rec))
  redis.call('LPUSH', laneKeyOf(pendingKey, rec), entryOf(row, rec.k))
  activate(campaignKey, activeKey, campaignId)
end
