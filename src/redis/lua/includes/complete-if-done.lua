--[[
  A campaign is complete when ingest is done and every row has a final status: then it
  gets `finishedAt` (once) and loses any pause. A campaign that completes without being
  cancelled emits `campaign.completed` (includes/events.lua; a cancelled one said `campaign.cancelled`).

  Defines: completeIfDone(campaignKey, now) → 1 when this call completed the campaign, else 0
]]
--- @include "events"
--- @include "counts"

local function completeIfDone(campaignKey, now)
  -- The counters it reads include what this script gathered.
  flushCounts()
  local f = redis.call('HMGET', campaignKey, 'ingestDone', 'total', 'n:sent', 'n:failed', 'n:rejected', 'n:skipped', 'n:unknown', 'n:cancelled', 'n:expired', 'finishedAt', 'cancelled')
  if f[1] ~= '1' or f[10] then return 0 end
  local answered = 0
  for i = 3, 9 do answered = answered + tonumber(f[i] or '0') end
  if answered >= tonumber(f[2] or '0') then
    redis.call('HSET', campaignKey, 'finishedAt', now)
    -- Every row has its answer: a pause (say, the brake tripping on the last row) has nothing left to hold.
    redis.call('HDEL', campaignKey, 'paused', 'pausedReason', 'pausedAt', 'templateHold')
    if f[11] ~= '1' then emitCampaignEvent(campaignKey, 'campaign.completed', now, nil) end
    return 1
  end
  return 0
end
