#!lua
--[[
  Records users' messages (reference §3.4): each opens that user's 24-hour customer-service
  window on the number (a key holding when it closes, by the ledger's clock; a later message
  extends it, an earlier one never shortens it); a reply to one of our messages (`context.id`, found
  through the `wamids` index) is kept on its row: a quick-reply tap as `q` with its time `qt`, a
  Flow's answer (its response_json) as `j` with its time `jt`, the earliest of each kind winning
  (webhooks may come out of order). The campaign's `n:replied` counts rows with a reply of either
  kind, once each: a row with both is one row that replied. An opt-out keyword records the user
  in the number's opt-outs.

  Input:
    KEYS[1] wamids     hash     <scope>:wamids (the message-ID index: includes/wamid-index.lua)

    ARGV[1] scope            the number's key scope, <prefix>:{<number>} (src/redis/key-scope.ts)
    ARGV[2] clock            ms added to Redis's TIME (0 in production), or '@<ms>': a stopped clock (includes/clock.lua)
    ARGV[3] window           window length (ms; 24 h)
    then 7 per message, from ARGV[4] on:
    ARGV[4] phone-number-id  phone number ID
    ARGV[5] wa-id            the user's WhatsApp ID (digits)
    ARGV[6] at               Meta's timestamp (ms)
    ARGV[7] reply-to         the message it answers ('' if none)
    ARGV[8] reply            the reply (button payload, interactive reply ID; '' if none)
    ARGV[9] flow-response    a Flow's answer, its response_json as bounded by the caller ('' if none)
    ARGV[10] opt-out         '1' when it is an opt-out keyword

  Output:
    Per message, 1 if its reply was recorded on a row (else 0).
]]

-- Includes
--- @include "clock"
--- @include "row-codec"
--- @include "row-store"
--- @include "wamid-index"
--- @include "events"

local wamidsKey = KEYS[1]
local prefix, now, windowMs = ARGV[1], ledgerNow(ARGV[2]), tonumber(ARGV[3])
local out = {}
for i = 4, #ARGV, 7 do
  local numberId, waId, at, replyTo = ARGV[i], ARGV[i + 1], tonumber(ARGV[i + 2]), ARGV[i + 3]
  local reply, flowResponse, optOut = ARGV[i + 4], ARGV[i + 5], ARGV[i + 6]
  local windowKey = prefix .. ':service-window:' .. numberId .. ':' .. waId
  local closes = at + windowMs
  local current = tonumber(redis.call('GET', windowKey) or '0')
  if closes > now and closes > current then redis.call('SET', windowKey, closes, 'PX', closes - now) end
  local answered = 0
  local campaignId, row = nil, nil
  if replyTo ~= '' then campaignId, row = wamidWhere(wamidsKey, replyTo) end
  if campaignId and (reply ~= '' or flowResponse ~= '') then
    local rowsKey = prefix .. ':campaign:' .. campaignId .. ':rows'
    local json = rowStored(rowsKey, row)
    if json then
      local rec = decodeRow(json)
      local firstReply = not rec.qt and not rec.jt
      if firstReply then redis.call('HINCRBY', prefix .. ':campaign:' .. campaignId, 'n:replied', 1) end
      local changed = false
      if reply ~= '' and (not rec.qt or at < rec.qt) then
        rec.q = reply; rec.qt = at; changed = true
      end
      if flowResponse ~= '' and (not rec.jt or at < rec.jt) then
        rec.j = flowResponse; rec.jt = at; changed = true
      end
      if changed then storeRow(rowsKey, row, encodeRow(rec)) end
      if firstReply then
        emitRowEvent(prefix .. ':campaign:' .. campaignId, row, 'row.replied', rec, now, { w = replyTo, reply = reply })
      end
      answered = 1
    end
  end
  if optOut == '1' then
    local optouts = prefix .. ':optouts:' .. numberId
    local phone = '+' .. waId
    if redis.call('HEXISTS', optouts, phone) == 0 then
      redis.call('HSET', optouts, phone, cjson.encode({ campaignId = campaignId or '', row = tonumber(row or '0'), at = at, via = 'keyword' }))
      if campaignId then
        emitRowEvent(prefix .. ':campaign:' .. campaignId, row, 'row.opted_out', { p = phone }, now, { w = replyTo, reason = 'keyword' })
      end
    end
  end
  out[#out + 1] = answered
end
return out
