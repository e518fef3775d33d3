#!lua
--[[
  Settles rows with their answers: the answers a worker got in the same turn of its event
  loop (src/redis/tick-batch.ts), applied in order, as separate calls would be.

  First final answer wins; only the row's owner may answer. A final answer ends the job's
  work (its ID leaves the window); `queued` does not (BullMQ runs the job again).
  `abandoned` (BullMQ gave up on the job) becomes `unknown` for a row caught mid-send,
  else `failed`. With a confirm window, `unknown` becomes `confirming` instead: the row waits
  that long for a status webhook (confirm-in-doubt.lua decides it after), and is indexed in
  the number's `confirm` set by its deadline (`cu`, on the ledger's clock). A `failed` answer makes the duplicate guard forget the message. Every
  sent/failed answer feeds the error-spike brake (includes/brake.lua): when more than share ×
  window of the last `window` failed, it pauses the campaign.
  `held` (Meta accepted the send but holds it for quality assessment) is not final: the row keeps
  its message ID (indexed, for its status webhooks) and waits in the `confirm` set until its
  patience deadline (`cu`); a status webhook settles it (apply-statuses.lua), else the sweep
  ends it `unknown` (confirm-in-doubt.lua). It feeds the brake when it settles, not here.
  `skipped`: a rule checked after the claim refused the row (FREQUENCY_CAPPED): never sent, so
  the duplicate guard forgets it, and like a row skipped at its claim it keeps no message.

  Input:
    KEYS[1] campaign   hash     <scope>:campaign:<id>
    KEYS[2] rows       hash     <scope>:campaign:<id>:rows (and its lists `:<n>`: includes/row-store.lua)
    KEYS[3] wamids     hash     <scope>:wamids (the message-ID index: includes/wamid-index.lua)
    KEYS[4] recent     string   <scope>:campaign:<id>:recent (the brake's bit ring)
    KEYS[5] sent       hash     <scope>:sent:<number> (duplicate guard: includes/sent-guard.lua)
    KEYS[6] window     zset     <scope>:feed:<number>:window
    KEYS[7] confirm    zset     <scope>:confirm:<number> ("campaign/row" → deadline ms)
    KEYS[8] capped     zset     <scope>:capped-retry:<number> ("campaign/row" → ms it is due: includes/capped-retry.lua)

    ARGV[1]  campaign-id     campaign ID
    ARGV[2]  clock           ms added to Redis's TIME (0 in production), or '@<ms>': a stopped clock (includes/clock.lua)
    ARGV[3]  brake-window    brake window (sends; 0 = off)
    ARGV[4]  brake-share     brake share (0..1)
    ARGV[5]  confirm-window  confirm window (ms; 0 = off: in-doubt rows are `unknown` at once)
    ARGV[6]  held-patience   held patience (ms): how long a `held` row waits for its status webhook
    then 8 per row (SETTLE_ROW_ARGS, after SETTLE_SHARED_ARGS = 6), from ARGV[7] on:
    ARGV[7]  row             row number
    ARGV[8]  status          'sent' | 'held' | 'failed' | 'unknown' | 'abandoned' | 'queued' | 'skipped'
    ARGV[9]  wamid           wamid ('' unless sent or held)
    ARGV[10] code            error code ('' when sent or held)
    ARGV[11] detail          error detail ('' when sent or held)
    ARGV[12] job             its job number
    ARGV[13] wamid-digits    the digits of the wamid's shape, or '' (src/redis/ledger/wamid-compact.ts)
    ARGV[14] wamid-m         what the row keeps of it as `m` when those are its phone's digits, or ''

  Output:
    Per row, flat, 3 values each: the row's status afterwards ('missing' for no such row),
    1 if this answer completed the campaign (else 0), 1 if it paused the campaign (else 0).
]]

-- Includes
--- @include "clock"
--- @include "row-codec"
--- @include "row-store"
--- @include "final"
--- @include "complete-if-done"
--- @include "move"
--- @include "brake"
--- @include "forget-send"
--- @include "backlog"
--- @include "wamid-index"
--- @include "wamid-compact"
--- @include "capped-retry"
--- @include "events"

local campaignKey, rowsKey, wamidsKey, recentKey, sentKey, windowKey, confirmKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7]
local cappedKey = KEYS[8]
local campaignId, now, window, share, confirmMs = ARGV[1], ledgerNow(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local heldMs = tonumber(ARGV[6])
local confirmUntil = nil
if confirmMs > 0 then confirmUntil = now + confirmMs end

local function settle(row, status, wamid, code, detail, owner, wamidDigits, wamidM)
  if status ~= 'queued' then redis.call('ZREM', windowKey, jobIdOf(campaignId, row, owner)) end
  local json = rowStored(rowsKey, row)
  if not json then return 'missing', 0, false end
  local rec = decodeRow(json)
  -- A `confirming` row's job is done: only a status webhook or the confirm sweep moves it.
  if FINAL[rec.s] or rec.s == 'confirming' or rec.s == 'held' or (rec.k or 0) ~= tonumber(owner) then return rec.s, 0, false end
  if status == 'abandoned' then
    if rec.s == 'sending' then status = 'unknown' else status = 'failed' end
  end
  if status == 'unknown' and confirmUntil then
    status = 'confirming'
    rec.cu = confirmUntil
    redis.call('ZADD', confirmKey, confirmUntil, campaignId .. '/' .. row)
  end
  if status == 'held' then
    rec.cu = now + heldMs
    redis.call('ZADD', confirmKey, rec.cu, campaignId .. '/' .. row)
  end
  move(campaignKey, rec, status, now)
  if wamid ~= '' then setRowWamid(rec, wamid, wamidDigits, wamidM) end
  if code ~= '' then rec.c = code; rec.d = detail elseif status == 'sent' or status == 'held' then rec.c = nil; rec.d = nil end
  -- When it failed: `campaign retry` holds back 131049 rows for 24 h after it.
  if status == 'failed' then rec.ft = now end
  -- Meta's marketing cap (131049): `--retry-capped-after` sends it again once, that long after.
  if status == 'failed' and code == '131049' then scheduleCappedRetry(cappedKey, campaignKey, campaignId, row, rec, now) end
  if status == 'skipped' then
    forgetSend(sentKey, rec.f, campaignId, row)
    rec.v = nil; rec.h = nil; rec.f = nil
  end
  storeRow(rowsKey, row, encodeRow(rec))
  if status == 'sent' or status == 'held' then indexWamid(wamidsKey, campaignKey, campaignId, row, wamid) end
  if status == 'sent' then emitRowEvent(campaignKey, row, 'row.sent', rec, now, { w = wamid }) end
  if status == 'failed' then emitRowEvent(campaignKey, row, 'row.failed', rec, now, { code = rec.c or code, detail = rec.d or detail }) end
  -- Meta refused it: not sent, so a later send of the same message is not a repeat. (An
  -- unknown row may have been sent: it keeps its entry.)
  if status == 'failed' then forgetSend(sentKey, rec.f, campaignId, row) end
  if status ~= 'sent' and status ~= 'failed' then return status, 0, true end
  return status, feedBrake(campaignKey, recentKey, window, share, status == 'failed', code, detail, now), true
end

local out = {}
local lastFinal = 0
-- From ARGV[SETTLE_SHARED_ARGS + 1], SETTLE_ROW_ARGS at a time (src/redis/ledger-scripts.ts
-- checks at load time that this line matches those constants).
withCountsGathered(function()
  for i = 7, #ARGV, 8 do
    local status, paused, applied = settle(ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3], ARGV[i + 4], ARGV[i + 5], ARGV[i + 6], ARGV[i + 7])
    out[#out + 1] = status
    out[#out + 1] = 0
    out[#out + 1] = paused
    if applied and FINAL[status] then lastFinal = #out - 1 end
  end
end)
-- Checked once, after every answer of the call is in: the answer that completed the
-- campaign is the call's last final one.
if lastFinal > 0 and completeIfDone(campaignKey, now) == 1 then out[lastFinal] = 1 end
return out
