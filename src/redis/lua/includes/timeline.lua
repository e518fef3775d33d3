--[[
  A campaign's timeline: how its counters `n:sent`, `n:failed`, `n:delivered` and `n:read`
  moved over time, for the charts of its page. The hash `<scope>:campaign:<id>:timeline`
  (built from the campaign's key: same slot) holds `<kind>:<start>:<width>` → the counter's
  change in that bucket (start and width in seconds; a change can be negative: a sent row
  that a status webhook turns failed takes one from sent). Buckets are counted when the
  change is recorded, on the ledger's clock. Their width grows with the campaign's age (from
  `startedAt`), so the hash stays small however long it runs: a minute for its first 6 hours,
  an hour to its 7th day, then a day (at most 4 × (360 + 162 + its days) fields).

  Defines: timelineAdd(campaignKey, kind, delta, now), TIMELINE_KINDS (status → true),
  timelineStarts (its cache of startedAt per campaign key)
]]
--- @include "counts"
local TIMELINE_KINDS = { sent = true, failed = true, delivered = true, read = true }
-- Per campaign key: its startedAt (ms; 0 before its first feed), read once per script call.
local timelineStarts = {}

local function timelineAdd(campaignKey, kind, delta, now)
  local started = timelineStarts[campaignKey]
  if not started then
    started = tonumber(redis.call('HGET', campaignKey, 'startedAt') or '0') or 0
    timelineStarts[campaignKey] = started
  end
  local age = now - started
  if started == 0 then age = 0 end
  local width = 60
  if age >= 7 * 86400000 then width = 86400 elseif age >= 6 * 3600000 then width = 3600 end
  local start = math.floor(now / 1000 / width) * width
  countAdd(campaignKey .. ':timeline', kind .. ':' .. string.format('%d', start) .. ':' .. width, delta)
end
