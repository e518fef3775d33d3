--[[
  Moves a row between statuses, keeping the campaign's counters (n:<status>) in step, and
  its timeline of sent and failed rows (includes/timeline.lua) with them (includes/counts.lua).
  Sets rec.s, and drops rec.g (claim.lua: the group job that claimed the row) off a row that is no
  longer `sending`; the caller writes the record.

  Defines: move(campaignKey, rec, status, now)
]]
--- @include "counts"
--- @include "timeline"

local function move(campaignKey, rec, status, now)
  countAdd(campaignKey, 'n:' .. rec.s, -1)
  countAdd(campaignKey, 'n:' .. status, 1)
  if rec.s ~= status then
    if TIMELINE_KINDS[rec.s] then timelineAdd(campaignKey, rec.s, -1, now) end
    if TIMELINE_KINDS[status] then timelineAdd(campaignKey, status, 1, now) end
  end
  rec.s = status
  -- The group that claimed the row is kept only while it is `sending` (claim.lua).
  if status ~= 'sending' then rec.g = nil end
end
