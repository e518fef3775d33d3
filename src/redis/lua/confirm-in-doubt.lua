#!lua
--[[
  The in-doubt rule's decision, for one phone number's `confirming` rows whose confirm
  window has passed with no status webhook (a status would have made them `sent` or
  `failed` and taken them out of the set):
    - the evidence says the request never reached Meta (statuses did arrive for a send of
      this number claimed after it: `status-seen` > the row's claim time `ct`) and the row
      was not resent before → back to the front of its backlog under a new job number,
      `queued`, marked resent (`rs`), so it is sent again once; a cancelled campaign's row
      becomes `cancelled` and an expired one's `expired` instead (it never went out);
    - otherwise → `unknown` (it may have been delivered; only `campaign retry --unknown`
      resends it). A row of a campaign sent through the Marketing Messages API
      (`/marketing_messages`) is never judged to have missed Meta: that API takes no
      `biz_opaque_callback_data` (Meta's OpenAPI, MarketingMessageRequestPayload), so the
      status of a request whose answer was lost names a message ID no row knows and cannot
      settle it, and later sends' statuses prove nothing of it. It becomes `unknown`.
  The same set holds `held` rows (settle.lua: Meta held the send for quality assessment) by
  their patience deadline (HELD_PATIENCE_HOURS): one still `held` then becomes `unknown`, with
  a detail saying so, so its campaign can complete; a later status webhook still settles it
  (apply-statuses.lua). Never resent: Meta has the message and may still deliver it.
  Due is judged on the ledger's clock, as the deadlines were set (settle.lua).

  Input:
    KEYS[1] confirm    zset     <scope>:confirm:<number> ("campaign/row" → deadline ms)
    KEYS[2] seen       string   <scope>:status-seen:<number> (latest claim time a status came for)
    KEYS[3] active     zset     <scope>:feed:<number>:campaigns
    KEYS[4] sent       hash     <scope>:sent:<number> (duplicate guard: includes/sent-guard.lua)

    ARGV[1] scope  the number's key scope, <prefix>:{<number>} (src/redis/key-scope.ts)
    ARGV[2] clock  ms added to Redis's TIME (0 in production), or '@<ms>': a stopped clock (includes/clock.lua)
    ARGV[3] limit  most rows to decide in this call

  Output:
    {rows resent, rows left unknown, rows cancelled or expired, held rows that ran out of
    patience (now `unknown`), then the IDs of the campaigns this call completed}
]]

-- Includes
--- @include "clock"
--- @include "row-codec"
--- @include "row-store"
--- @include "move"
--- @include "backlog"
--- @include "complete-if-done"
--- @include "forget-send"

local confirmKey, seenKey, activeKey, sentKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local prefix, now, limit = ARGV[1], ledgerNow(ARGV[2]), tonumber(ARGV[3])
local due = redis.call('ZRANGEBYSCORE', confirmKey, '-inf', now, 'LIMIT', 0, limit)
local seen = tonumber(redis.call('GET', seenKey) or '0')
local resent, unknown, ended, heldOut = 0, 0, 0, 0
local completed = {}
-- Per campaign: whether it sends through the Marketing Messages API (its statuses carry no callback data).
local noCallbackData = {}
local function sentWithoutCallbackData(campaignKey)
  if noCallbackData[campaignKey] == nil then
    local definition = redis.call('HGET', campaignKey, 'definition')
    noCallbackData[campaignKey] = definition ~= false and definition ~= nil and cjson.decode(definition).endpoint == 'marketing-messages'
  end
  return noCallbackData[campaignKey]
end
for _, member in ipairs(due) do
  redis.call('ZREM', confirmKey, member)
  local campaignId, row = string.match(member, '^(.+)/(%d+)$')
  local rowsKey = prefix .. ':campaign:' .. (campaignId or '') .. ':rows'
  local json = campaignId and rowStored(rowsKey, row)
  -- Gone (purged) or already answered by a status: nothing to decide.
  if json then
    local rec = decodeRow(json)
    if rec.s == 'held' then
      local campaignKey = prefix .. ':campaign:' .. campaignId
      rec.cu = nil
      rec.d = 'held_for_quality_assessment: Meta held the send and no status webhook released or dropped it within HELD_PATIENCE_HOURS; it may still be delivered, so it is not resent'
      move(campaignKey, rec, 'unknown', now)
      storeRow(rowsKey, row, encodeRow(rec))
      heldOut = heldOut + 1
      if completeIfDone(campaignKey, now) == 1 then completed[#completed + 1] = campaignId end
    elseif rec.s == 'confirming' then
      local campaignKey = prefix .. ':campaign:' .. campaignId
      local held = redis.call('HMGET', campaignKey, 'cancelled', 'expiresAt')
      local viaMarketingApi = sentWithoutCallbackData(campaignKey)
      local neverReached = rec.ct ~= nil and seen > rec.ct and not viaMarketingApi
      rec.cu = nil
      local final = nil
      if neverReached and not rec.rs and rec.v then
        if held[1] == '1' or (held[2] and now >= tonumber(held[2])) then
          final = 'expired'
          if held[1] == '1' then final = 'cancelled' end
          -- It never went out: a later send of the same message is no repeat.
          forgetSend(sentKey, rec.f, campaignId, row)
        else
          move(campaignKey, rec, 'queued', now)
          rec.rs = 1
          rec.d = (rec.d or '') .. '; no status webhook came for it while later sends from this number had theirs, so it never reached Meta: sent again (once)'
          rec.k = (rec.k or 0) + 1
          storeRow(rowsKey, row, encodeRow(rec))
          redis.call('LPUSH', laneKeyOf(prefix .. ':campaign:' .. campaignId .. ':pending', rec), entryOf(row, rec.k))
          activate(campaignKey, activeKey, campaignId)
          resent = resent + 1
        end
      else
        final = 'unknown'
        if rec.rs then
          rec.d = (rec.d or '') .. '; resent once already and again no answer: not sent a third time'
        elseif neverReached then
          rec.d = (rec.d or '') .. '; the row has no values to send again'
        elseif viaMarketingApi then
          rec.d = (rec.d or '') .. '; sent through the Marketing Messages API, whose statuses carry no callback data: without the answer\'s message ID no status can settle it, so it may have been delivered and is not resent'
        else
          rec.d = (rec.d or '') .. '; no status webhook within CONFIRM_WINDOW_SECONDS, and none for later sends from this number either: it may have been delivered, so it is not resent'
        end
      end
      if final then
        move(campaignKey, rec, final, now)
        storeRow(rowsKey, row, encodeRow(rec))
        if final == 'unknown' then unknown = unknown + 1 else ended = ended + 1 end
        if completeIfDone(campaignKey, now) == 1 then completed[#completed + 1] = campaignId end
      end
    end
  end
end
local out = { resent, unknown, ended, heldOut }
for _, id in ipairs(completed) do out[#out + 1] = id end
return out
