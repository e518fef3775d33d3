--[[
  Forgets the duplicate-send guard's entry for a row whose request was refused: it was not
  sent, so a later send of the same message is no repeat. An entry another row wrote since
  stays.

  Defines: forgetSend(sentKey, f, campaignId, row)
]]
--- @include "sent-guard-write"

local function forgetSend(sentKey, f, campaignId, row)
  if not f then return end
  guardForget(sentKey, f, campaignId, row)
end
