--[[
  Forgets the duplicate-send guard's entry for a row whose request was refused: it was not
  sent, so a later send of the same message is no repeat. An entry another row wrote since
  stays.

  Defines: forgetSend(sentKey, f, campaignId, row)
]]
local function forgetSend(sentKey, f, campaignId, row)
  if not f then return end
  local entry = redis.call('HGET', sentKey, f)
  local own = campaignId .. '/' .. row .. '/'
  if entry and string.sub(entry, 1, #own) == own then
    redis.call('HDEL', sentKey, f)
  end
end
