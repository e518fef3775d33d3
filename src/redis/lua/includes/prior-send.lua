--[[
  The duplicate-send guard's check: the entry for fingerprint `f` that another row
  recorded less than `window` ms before `now`, as a sentence for the row's detail.

  Defines: priorSendOf(cid, r, at, campaignId, row, now, window) → the sentence for an entry already read
    (guardOwner), or nil when it is none; priorSend(sentKey, f, campaignId, row, now, window) → the sentence, or
    nil when there is none
]]
--- @include "sent-guard"

local function priorSendOf(cid, r, at, campaignId, row, now, window)
  if not cid or (cid == campaignId and r == tostring(row)) then return nil end
  local age = tonumber(now) - at
  if age >= window then return nil end
  return 'campaign ' .. cid .. ' row ' .. r .. ' sent the same message (template, language, values) to this recipient from this number ' ..
    string.format('%.1f', age / 3600000) .. ' h ago, within DUPLICATE_WINDOW_HOURS; not sent again (--allow-repeat sends it anyway)'
end

local function priorSend(sentKey, f, campaignId, row, now, window)
  if window <= 0 or not f or f == '' then return nil end
  local cid, r, at = guardEntry(sentKey, f)
  return priorSendOf(cid, r, at, campaignId, row, now, window)
end
