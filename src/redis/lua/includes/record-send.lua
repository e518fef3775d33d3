--[[
  Records in the duplicate-send guard (a small hash at `sentKey`: includes/small-hash.lua) that
  this row sends message `f` now. The bucket written and the guard's meta expire a window after
  their newest entry, never sooner than a longer window another worker set, so a number that
  stops sending keeps none of it once the window has passed.

  Defines: recordSend(sentKey, f, campaignId, row, now, window)
]]

-- Includes
--- @include "small-hash"

local function recordSend(sentKey, f, campaignId, row, now, window)
  local bucket = smallHashSet(sentKey, f, campaignId .. '/' .. row .. '/' .. now)
  for _, key in ipairs({ bucket, sentKey .. ':meta' }) do
    if redis.call('PTTL', key) < window then redis.call('PEXPIRE', key, window) end
  end
end
