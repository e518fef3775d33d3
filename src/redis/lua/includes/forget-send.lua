--[[
  Forgets the duplicate-send guard's entry for a row whose request was refused: it was not
  sent, so a later send of the same message is no repeat. An entry another row wrote since
  stays.

  Defines: forgetSend(sentKey, f, campaignId, row)
]]

-- Includes
--- @include "small-hash"

local function forgetSend(sentKey, f, campaignId, row)
  if not f then return end
  local own = campaignId .. '/' .. row .. '/'
  local entry = smallHashGet(sentKey, f)
  if entry and string.sub(entry, 1, #own) == own then smallHashDel(sentKey, f) end
  -- What an older version wrote, in the hash at sentKey itself.
  entry = redis.call('HGET', sentKey, f)
  if entry and string.sub(entry, 1, #own) == own then redis.call('HDEL', sentKey, f) end
end
