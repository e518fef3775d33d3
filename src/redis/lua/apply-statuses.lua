#!lua
--[[
  Applies Meta's status webhooks (sent, delivered, read, failed) to the rows they are about,
  by the first time each kind was seen, so any order and any duplicates give the same row
  (test/support/delivery-state.ts states the same rule; webhook-statuses.test.ts checks the two agree):
    - a status proves the send was accepted: a row still `sending` (its own answer not yet
      recorded), `confirming` (in doubt, waiting for this), `held` (Meta held it for quality
      assessment: this releases it), `unknown` (its answer lost) or `queued` (a retry pending
      after an attempt that did reach Meta) becomes `sent`, with the message ID, and leaves
      the number's `confirm` set;
    - the number's `status-seen` keeps the latest claim time (`ct`) of a row any status was
      seen for: the in-doubt rule's evidence that later sends reached Meta;
    - `delivered` and `read` keep their earliest timestamp (`dt`, `rt`; a read is also a
      delivery) and drop the row's fingerprint (`f`: a delivered message is never failed or
      sent again); the campaign's `n:delivered` and `n:read` count rows, once each, and so does
      its timeline (includes/timeline.lua), when the status is recorded;
    - `failed` makes the row `failed` with Meta's code and detail (the earliest failure),
      and the duplicate-send guard forgets its message (it was not delivered); 131050 also
      records the opt-out for the number's MARKETING campaigns; 131049 for a row of a campaign
      that sends a MARKETING template records the user's marketing cap, until the wait after
      Meta's time of the failure (includes/marketing-cap.lua), in the number's copy of the
      portfolio's caps; 132015 / 132016 (the template
      paused or disabled) put the template's hold on the campaign (includes/template-hold.lua);
    - the error-spike brake (includes/brake.lua) gets the outcome of a row no answer fed it
      for (one of those above: failed or sent), and a failure of a row it counted sent; not
      once the campaign is finished.
    - the first `pricing` seen (Meta sends it once per message from v24, before that on more
      than one status) sets the row's pricing category (`pc`) and billable flag (`pb`), and a
      billable one counts in the campaign's `billed:<market>:<category>` field.
  The row is found by message ID (the `wamids` index), else by `biz_opaque_callback_data`
  ("campaign/row", set on every send). Campaign keys are built here from the prefix.

  Input:
    KEYS[1] wamids     hash     <scope>:wamids (the message-ID index: includes/wamid-index.lua)

    ARGV[1]  scope            the number's key scope, <prefix>:{<number>} (src/redis/key-scope.ts)
    ARGV[2]  clock            ms added to Redis's TIME (0 in production), or '@<ms>': a stopped clock (includes/clock.lua)
    ARGV[3]  brake-window     brake window (sends; 0 = off)
    ARGV[4]  brake-share      brake share (0..1)
    ARGV[5]  cap-wait         the marketing cap's wait (ms) after a 131049
    then 10 per status, from ARGV[6] on:
    ARGV[6]  wamid            message ID (wamid)
    ARGV[7]  kind             'sent' | 'delivered' | 'read' | 'failed'
    ARGV[8]  at               Meta's timestamp (ms)
    ARGV[9]  callback-data    biz_opaque_callback_data ('' when absent)
    ARGV[10] code             error code ('' unless failed)
    ARGV[11] detail           error detail ('' unless failed)
    ARGV[12] phone-number-id  phone number ID the webhook was for
    ARGV[13] pricing          '' when the status has none, else "<category>|<1 billable, 0 not>|<market>"
    ARGV[14] wamid-digits     the digits of the wamid's shape, or '' (src/redis/ledger/wamid-compact.ts)
    ARGV[15] wamid-m          what a row keeps of it as `m` when those are its phone's digits, or ''

  Output:
    Per status, flat, 2 values each: 'applied' | 'same' (nothing new) | 'unmatched' (no row
    has this message ID or callback data yet) | 'other' (the row is not one a send answered:
    rejected, skipped, cancelled, expired), then flags: 1 if this status completed its campaign,
    plus 2 if it recorded the row's billable pricing, plus 4 if it recorded a marketing cap for
    the row's recipient.
]]

-- Includes
--- @include "clock"
--- @include "row-codec"
--- @include "row-store"
--- @include "complete-if-done"
--- @include "move"
--- @include "timeline"
--- @include "forget-send"
--- @include "template-hold"
--- @include "brake"
--- @include "wamid-index"
--- @include "wamid-compact"
--- @include "marketing-cap"
--- @include "capped-retry"
--- @include "events"

local wamidsKey = KEYS[1]
local prefix, now = ARGV[1], ledgerNow(ARGV[2])
local brakeWindow, brakeShare, capWait = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local ANSWERABLE = { sending = true, confirming = true, held = true, unknown = true, queued = true }
-- Per phone number ID: the latest claim time a status was seen for (written once, at the end).
local seen = {}
local SENT_ON = { sent = true, failed = true }

local function locate(wamid, callback)
  local campaignId, row = wamidWhere(wamidsKey, wamid)
  if not campaignId and callback ~= '' then campaignId, row = string.match(callback, '^(.+)/(%d+)$') end
  if not campaignId then return nil end
  local rowsKey = prefix .. ':campaign:' .. campaignId .. ':rows'
  local json = rowStored(rowsKey, row)
  if not json then return nil end
  return campaignId, row, rowsKey, decodeRow(json)
end

local out = {}
for i = 6, #ARGV, 10 do
  local wamid, kind, at, callback, code, detail, numberId = ARGV[i], ARGV[i + 1], tonumber(ARGV[i + 2]), ARGV[i + 3], ARGV[i + 4], ARGV[i + 5], ARGV[i + 6]
  local pricing, billed, capped = ARGV[i + 7], 0, 0
  local campaignId, row, rowsKey, rec = locate(wamid, callback)
  local outcome, completed = 'unmatched', 0
  if rec then
    local campaignKey = prefix .. ':campaign:' .. campaignId
    if not ANSWERABLE[rec.s] and not SENT_ON[rec.s] then
      outcome = 'other'
    else
      local changed, before = false, rec.s
      if rec.ct and rec.ct > (seen[numberId] or 0) then seen[numberId] = rec.ct end
      if ANSWERABLE[rec.s] then
        if rec.s == 'confirming' or rec.s == 'held' then
          redis.call('ZREM', prefix .. ':confirm:' .. numberId, campaignId .. '/' .. row)
          rec.cu = nil
        end
        move(campaignKey, rec, 'sent', now)
        rec.c = nil; rec.d = nil
        changed = true
        emitRowEvent(campaignKey, row, 'row.sent', rec, now, { w = wamid })
      end
      if not rowHasWamid(rec) then
        setRowWamid(rec, wamid, ARGV[i + 8], ARGV[i + 9])
        indexWamid(wamidsKey, campaignKey, campaignId, row, wamid)
        changed = true
      end
      if kind == 'delivered' or kind == 'read' then
        if not rec.dt then
          redis.call('HINCRBY', campaignKey, 'n:delivered', 1)
          timelineAdd(campaignKey, 'delivered', 1, now)
          emitRowEvent(campaignKey, row, 'row.delivered', rec, now, { w = wamid })
        end
        -- Delivered: it never fails now, so it is never sent again and its fingerprint (kept to
        -- forget a failed message in the duplicate guard) has no use; its values stay (retarget).
        if not rec.dt then rec.f = nil end
        if not rec.dt or at < rec.dt then rec.dt = at; changed = true end
      end
      if kind == 'read' then
        if not rec.rt then
          redis.call('HINCRBY', campaignKey, 'n:read', 1)
          timelineAdd(campaignKey, 'read', 1, now)
          emitRowEvent(campaignKey, row, 'row.read', rec, now, { w = wamid })
        end
        if not rec.rt or at < rec.rt then rec.rt = at; changed = true end
      end
      if kind == 'failed' then
        if not rec.ft or at < rec.ft or (at == rec.ft and code < (rec.c or '')) then
          rec.ft = at; rec.c = code; rec.d = detail
          changed = true
        end
        if rec.s ~= 'failed' then
          move(campaignKey, rec, 'failed', now); changed = true
          emitRowEvent(campaignKey, row, 'row.failed', rec, now, { w = wamid, code = rec.c, detail = rec.d })
          -- Not delivered: a later send of the same message is no repeat (as a refused send).
          forgetSend(prefix .. ':sent:' .. numberId, rec.f, campaignId, row)
        end
        if code == '131050' then
          local optouts = prefix .. ':optouts:' .. numberId
          if redis.call('HEXISTS', optouts, rec.p) == 0 then
            redis.call('HSET', optouts, rec.p, cjson.encode({ campaignId = campaignId, row = tonumber(row), at = tonumber(now) }))
            emitRowEvent(campaignKey, row, 'row.opted_out', rec, now, { w = wamid, reason = '131050' })
          end
        end
        if code == MARKETING_CAP_CODE and rec.s == 'failed' then
          scheduleCappedRetry(prefix .. ':capped-retry:' .. numberId, campaignKey, campaignId, row, rec, at)
        end
        if code == MARKETING_CAP_CODE and rec.p and marketingCapApplies(campaignKey) then
          recordCap(prefix .. ':marketing-caps:' .. numberId, rec.p, at + capWait, now)
          -- Flagged while the cap holds, even when this copy had it: the caller gives it to the rest of the portfolio.
          if at + capWait > now then capped = 4 end
        end
        local event, held = templateEventOf(code, detail)
        if holdsTemplate(event) then
          local c = redis.call('HMGET', campaignKey, 'definition', 'cancelled', 'finishedAt')
          local plan = c[1] and cjson.decode(c[1]).plan
          if type(plan) == 'table' and c[2] ~= '1' and not c[3] then
            putTemplateHold(campaignKey, event, plan.name, plan.language, held, now)
          end
        end
      end
      if (ANSWERABLE[before] or (kind == 'failed' and before == 'sent')) and not redis.call('HGET', campaignKey, 'finishedAt') then
        feedBrake(campaignKey, campaignKey .. ':recent', brakeWindow, brakeShare, kind == 'failed', code, detail, now)
      end
      local category, billable, market = string.match(pricing, '^([^|]+)|([01])|(.+)$')
      if category and not rec.pc then
        rec.pc = category; rec.pb = tonumber(billable); changed = true
        if billable == '1' then
          redis.call('HINCRBY', campaignKey, 'billed:' .. market .. ':' .. category, 1)
          billed = 2
        end
      end
      if changed then
        storeRow(rowsKey, row, encodeRow(rec))
        outcome = 'applied'
        completed = completeIfDone(campaignKey, now)
      else
        outcome = 'same'
      end
    end
  end
  out[#out + 1] = outcome
  out[#out + 1] = completed + billed + capped
end
for numberId, ct in pairs(seen) do
  local key = prefix .. ':status-seen:' .. numberId
  if ct > tonumber(redis.call('GET', key) or '0') then redis.call('SET', key, ct) end
end
return out
