--[[
  The error-spike brake: a campaign's ring of its last `window` outcomes (the `recent` bits,
  1 = failed permanently) and `recentSends` / `recentFails` in its hash. Fed by every sent or
  failed answer (settle.lua), and by the status webhooks that settle a row or fail a sent one
  (apply-statuses.lua). When more than share × window of the ring failed, it pauses the campaign.

  Defines: feedBrake(campaignKey, recentKey, window, share, failed, code, detail, now) → 1 if this
    outcome paused the campaign, else 0 (window 0: the brake is off, nothing is recorded)
]]

-- Includes
--- @include "pause-if-running"

local function feedBrake(campaignKey, recentKey, window, share, failed, code, detail, now)
  if window <= 0 then return 0 end
  local bit = 0
  if failed then bit = 1 end
  -- A ring of 'window' bits: this outcome's bit replaces the one from 'window' outcomes ago.
  local pos = redis.call('HINCRBY', campaignKey, 'recentSends', 1)
  local old = redis.call('BITFIELD', recentKey, 'SET', 'u1', '#' .. ((pos - 1) % window), bit)[1]
  local fails = 0
  if bit ~= old then
    fails = redis.call('HINCRBY', campaignKey, 'recentFails', bit - old)
  elseif bit == 1 then
    fails = tonumber(redis.call('HGET', campaignKey, 'recentFails') or '0')
  end
  if bit == 1 and fails > window * share then
    local reason = 'ERROR_SPIKE: ' .. fails .. ' of the last ' .. window .. ' sends failed permanently (latest ' .. code .. ': ' .. detail .. ')'
    return pauseIfRunning(campaignKey, reason, now)
  end
  return 0
end
