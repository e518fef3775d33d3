#!lua
--[[
  Claims rows for sending: the claims a worker made in the same turn of its event loop
  (src/redis/tick-batch.ts), all of one campaign; each is decided on its own.

  Order matters: a settled row answers first; only the row's owner goes further; a row left
  `sending` is in doubt even when paused (the pause must not hide a possible send), but only to
  the job that claimed it (its group, `g`, kept on the row while it is `sending`): another live
  job naming the same row (one put in the queue by hand) finds it `stale` and leaves it to that
  job, whose answer is still to come; a
  cancelled campaign starts nothing; a paused one parks the row (back to the backlog under
  a new job number, for resume); a recipient who opted out of marketing from the business
  (the number's copy of its portfolio's opt-outs) is skipped as OPTED_OUT when the campaign
  is one opt-outs apply to (includes/opted-out.lua), however long ago the row was read or
  fed: a STOP that came while it waited holds at its claim, right before its request; a
  recipient whose marketing cap Meta reported (131049) on any number of the portfolio within
  the wait (the number's copy of the portfolio's caps) is skipped as MARKETING_CAP_WAIT when the
  campaign sends a MARKETING template (includes/marketing-cap.lua), the same way; a
  message this number already sent within the window (another row, any campaign) is
  skipped; only then is the row `sending`, and its message
  recorded in the guard (which expires a window after its newest entry). Every outcome but `claimed` and `in-doubt` ends the job's work, so
  its ID leaves the window here. Expiry (`expiresAt`) is judged on the ledger's clock, and a
  claim's time (`ct`) is kept on it, so the in-doubt rule can tell which sends came after which.

  Input:
    KEYS[1] campaign   hash     <scope>:campaign:<id>
    KEYS[2] rows       hash     <scope>:campaign:<id>:rows (and its lists `:<n>`: includes/row-store.lua)
    KEYS[3] sent       hash     <scope>:sent:<number> (duplicate guard: includes/sent-guard.lua)
    KEYS[4] window     zset     <scope>:feed:<number>:window
    KEYS[5] active     zset     <scope>:feed:<number>:campaigns
    KEYS[6] pending    list     <scope>:campaign:<id>:pending
    KEYS[7] optouts    hash     <scope>:optouts:<number> (phone → source JSON)
    KEYS[8] caps       zset     <scope>:marketing-caps:<number> (phone → ms the marketing cap's wait ends)

    ARGV[1] clock             ms added to Redis's TIME (0 in production), or '@<ms>': a stopped clock (includes/clock.lua)
    ARGV[2] duplicate-window  duplicate window (ms; 0 = off)
    ARGV[3] campaign-id       campaign ID
    then 3 per row claimed, from ARGV[4] on:
    ARGV[4] row               row number
    ARGV[5] job               its job number
    ARGV[6] group             the group job it runs in, or '' for a job of one row

  Output:
    Per row, flat, CLAIM_ANSWER_WIDTH (5) values each:
      outcome ('claimed' | 'in-doubt' | 'settled' | 'parked' | 'stale' | 'missing'),
      status-or-attempts (attempts when claimed or in doubt, the final status when settled),
      then for a claimed row its phone, its values as JSON ('' if the row has none: written
      by an older version) and header link; for a row settled here (by a cancel, an expiry,
      ALREADY_SENT, OPTED_OUT or MARKETING_CAP_WAIT) '1' in the third place when that completed
      the campaign ('0' when not); the places a row does not use are ''.
]]

-- Includes
--- @include "clock"
--- @include "row-codec"
--- @include "row-store"
--- @include "final"
--- @include "complete-if-done"
--- @include "move"
--- @include "guard-claim"
--- @include "backlog"
--- @include "park"
--- @include "opted-out"
--- @include "marketing-cap"

local campaignKey, rowsKey, sentKey, windowKey, activeKey, pendingKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local optOutsKey, capsKey = KEYS[7], KEYS[8]
local now, window, campaignId = ledgerNow(ARGV[1]), tonumber(ARGV[2]), ARGV[3]
local held = redis.call('HMGET', campaignKey, 'cancelled', 'paused', 'allowRepeat', 'expiresAt')
local expired = false
if held[4] then expired = now >= tonumber(held[4]) end
-- A row that ends here unsent is never claimed again (only a new ingest of its file reopens it,
-- with its message): what it would have sent is not kept.
local function saveUnsent(row, rec)
  rec.v = nil; rec.h = nil; rec.f = nil
  storeRow(rowsKey, row, encodeRow(rec))
end
local function claim(row, owner, group)
  local json = rowStored(rowsKey, row)
  if not json then return 'missing', '' end
  local rec = decodeRow(json)
  -- A `confirming` or `held` row waits for a status webhook or the confirm sweep, never for a job.
  if FINAL[rec.s] or rec.s == 'confirming' or rec.s == 'held' then return 'settled', rec.s end
  if (rec.k or 0) ~= tonumber(owner) then return 'stale', '' end
  if rec.s == 'sending' then
    -- 'busy': the claiming job's answer is still to come, so the row's job stays in the window. A row
    -- claimed before rows kept their group has none: in doubt to any job, so it is never stranded.
    if rec.g ~= nil and rec.g ~= group then return 'stale', 'busy' end
    return 'in-doubt', tostring(rec.a or 0)
  end
  if held[1] == '1' or expired then
    local final = 'cancelled'
    if held[1] ~= '1' then final = 'expired' end
    move(campaignKey, rec, final, now)
    saveUnsent(row, rec)
    return 'settled', final, tostring(completeIfDone(campaignKey, now))
  end
  if held[2] == '1' then
    park(campaignKey, rowsKey, pendingKey, activeKey, campaignId, row, rec)
    return 'parked', ''
  end
  local optedOut = redis.call('HGET', optOutsKey, rec.p or '')
  if optedOut and optOutsApply(campaignKey) then
    move(campaignKey, rec, 'skipped', now)
    rec.c = 'OPTED_OUT'; rec.d = optedOutDetail(optedOut, campaignKey)
    saveUnsent(row, rec)
    return 'settled', 'skipped', tostring(completeIfDone(campaignKey, now))
  end
  local capEnds = capEnd(capsKey, rec.p or '', now)
  if capEnds and marketingCapApplies(campaignKey) then
    move(campaignKey, rec, 'skipped', now)
    rec.c = 'MARKETING_CAP_WAIT'; rec.d = marketingCapDetail(capEnds)
    saveUnsent(row, rec)
    return 'settled', 'skipped', tostring(completeIfDone(campaignKey, now))
  end
  if window > 0 and rec.f then
    local dup = guardClaim(sentKey, rec.f, campaignId, row, now, window, held[3] == '1')
    if dup then
      move(campaignKey, rec, 'skipped', now)
      rec.c = 'ALREADY_SENT'; rec.d = dup
      saveUnsent(row, rec)
      return 'settled', 'skipped', tostring(completeIfDone(campaignKey, now))
    end
  end
  rec.a = (rec.a or 0) + 1
  rec.ct = now
  move(campaignKey, rec, 'sending', now)
  rec.g = group
  storeRow(rowsKey, row, encodeRow(rec))
  local values = ''
  if rec.v then values = cjson.encode(rec.v) end
  return 'claimed', tostring(rec.a), rec.p, values, rec.h or ''
end
local out = {}
withCountsGathered(function()
  for i = 4, #ARGV, 3 do
    local outcome, value, phone, values, header = claim(ARGV[i], ARGV[i + 1], ARGV[i + 2])
    if outcome ~= 'claimed' and outcome ~= 'in-doubt' and value ~= 'busy' then
      redis.call('ZREM', windowKey, jobIdOf(campaignId, ARGV[i], ARGV[i + 1]))
    end
    out[#out + 1] = outcome
    out[#out + 1] = value
    out[#out + 1] = phone or ''
    out[#out + 1] = values or ''
    out[#out + 1] = header or ''
  end
end)
-- The guard forgets messages older than the window, a few per call; each of its keys lives a
-- window after its newest entry (includes/bucket-map.lua), never shortened by a shorter window.
if window > 0 then guardPrune(sentKey, now, window) end
return out
