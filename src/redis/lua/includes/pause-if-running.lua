--[[
  Pauses a campaign that is neither paused nor cancelled, with `reason` and `now` as
  pausedReason and pausedAt. An earlier pause keeps its reason.

  Defines: pauseIfRunning(campaignKey, reason, now) → 1 if this call paused it, else 0
]]
local function pauseIfRunning(campaignKey, reason, now)
  local f = redis.call('HMGET', campaignKey, 'paused', 'cancelled')
  if f[1] == '1' or f[2] == '1' then return 0 end
  redis.call('HSET', campaignKey, 'paused', '1', 'pausedReason', reason, 'pausedAt', now)
  return 1
end
