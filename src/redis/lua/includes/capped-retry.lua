--[[
  `send --retry-capped-after`: a row Meta failed with 131049 (its marketing cap for the user)
  is sent again once, that long after the failure (retry-capped.lua does it when due). Its
  due time goes into the number's capped-retry set, "campaign/row" → ms; a row sent again
  once (`cr`) is not scheduled a second time, and a campaign without the option schedules nothing.

  Defines: scheduleCappedRetry(cappedKey, campaignKey, campaignId, row, rec, failedAt)
]]
local function scheduleCappedRetry(cappedKey, campaignKey, campaignId, row, rec, failedAt)
  if rec.cr or not rec.v then return end
  local json = redis.call('HGET', campaignKey, 'definition')
  if not json then return end
  local after = tonumber(cjson.decode(json).retryCappedAfterMs or '')
  if not after or after <= 0 then return end
  redis.call('ZADD', cappedKey, failedAt + after, campaignId .. '/' .. row)
end
