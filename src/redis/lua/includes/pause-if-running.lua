--[[
  Pauses a campaign that is neither paused nor cancelled, with `reason` and `now` as
  pausedReason and pausedAt. An earlier pause keeps its reason, except a pause that only a
  template holds (pausedReason is its templateHold, template-status.lua): this pause writes its
  own reason over it, so the template's reinstatement leaves the campaign paused.

  A pause that this call makes (or takes over) is the campaign's `campaign.paused` event (includes/events.lua).

  Defines: pauseIfRunning(campaignKey, reason, now) → 1 if this call paused it (or took over a template's pause), else 0
]]
--- @include "events"

local function pauseIfRunning(campaignKey, reason, now)
  local f = redis.call('HMGET', campaignKey, 'paused', 'cancelled', 'pausedReason', 'templateHold')
  if f[2] == '1' then return 0 end
  if f[1] == '1' and (not f[4] or f[3] ~= f[4]) then return 0 end
  redis.call('HSET', campaignKey, 'paused', '1', 'pausedReason', reason, 'pausedAt', now)
  if f[1] ~= '1' then emitCampaignEvent(campaignKey, 'campaign.paused', now, reason) end
  return 1
end
