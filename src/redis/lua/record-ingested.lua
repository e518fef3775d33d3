#!lua
--[[
  Records one chunk of ingested rows. This runs once per chunk on the ingest path: one
  argument and a handful of commands per chunk, not per row.

  A row queued here joins the backlog (pending), to be fed when its turn comes; one whose
  message this number already sent within the duplicate window (another row, any
  campaign) is skipped as ALREADY_SENT instead, and in a cancelled or expired campaign it
  is cancelled or expired at once. A rejected or skipped row (never sent) takes the new
  verdict: a fixed file sent again, an opt-out lifted, `--allow-repeat`; reopened, it gets
  a job number no earlier job used. Every other existing row keeps its state, so no row is
  sent twice. Rows queued here make a finished campaign unfinished.

  Input:
    KEYS[1] campaign   hash     <scope>:campaign:<id>
    KEYS[2] rows       hash     <scope>:campaign:<id>:rows (and its lists `:<n>`: includes/row-store.lua; a record: includes/row-codec.lua)
    KEYS[3] sent       hash     <scope>:sent:<number> (duplicate guard: includes/sent-guard.lua)
    KEYS[4] pending    list     <scope>:campaign:<id>:pending (the backlog)
    KEYS[5] active     zset     <scope>:feed:<number>:campaigns
    KEYS[6] mark       string   <scope>:campaign:<id>:chunk:<token> (this call's own, see ARGV[5])

    ARGV[1] chunk             the rows, a JSON array, each row one of
                              [row, 'queued', phone, values, header link or '', fingerprint, lane?]
                              (lane: its send-window lane, when the campaign has --window; the row then
                              waits in pending:<lane>)
                              [row, 'rejected' | 'skipped', phone, code, detail]
    ARGV[2] campaign-id       campaign ID
    ARGV[3] clock             ms added to Redis's TIME (0 in production), or '@<ms>': a stopped clock (includes/clock.lua)
    ARGV[4] duplicate-window  duplicate window (ms; 0 = off, as is an `allowRepeat` campaign)
    ARGV[5] mark-ms           how long `mark` stays (ms; 0 = no mark): with it a caller whose connection
                              changed before the write was on the replicas (a failover) can tell whether the
                              node it reaches now holds this call's writes; a script's writes replicate whole

  Output:
    { rows queued by this call,
      {row, detail, row, detail, …} of the rows turned ALREADY_SENT,
      number of rows reopened }
]]

-- Includes
--- @include "clock"
--- @include "row-codec"
--- @include "row-store"
--- @include "prior-send"
--- @include "backlog"

local campaignKey, rowsKey, sentKey, pendingKey, activeKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local markMs = tonumber(ARGV[5])
if markMs > 0 then redis.call('SET', KEYS[6], '1', 'PX', markMs) end
local rows = cjson.decode(ARGV[1])
local campaignId, now, window = ARGV[2], ledgerNow(ARGV[3]), tonumber(ARGV[4])
local flags = redis.call('HMGET', campaignKey, 'cancelled', 'allowRepeat', 'expired')
local cancelled = flags[1] == '1'
local expired = flags[3] == '1'
if flags[2] == '1' then window = 0 end
local existing = {}
for i, r in ipairs(rows) do existing[i] = rowStored(rowsKey, r[1]) end
local queuedNow, entries, already, fresh, delta = {}, {}, {}, {}, {}
local anyEntry = false
local added, reopened = 0, 0
for i, r in ipairs(rows) do
  local row = r[1]
  local current = existing[i]
  local old = nil
  if current then old = decodeRow(current) end
  if not old or old.s == 'rejected' or old.s == 'skipped' then
    local rec
    if r[2] == 'queued' then
      rec = { p = r[3], s = 'queued', v = r[4], f = r[6] }
      if r[5] ~= '' then rec.h = r[5] end
      -- Its send-window lane (a campaign with --window).
      if r[7] ~= nil then rec.z = r[7] end
      local dup = priorSend(sentKey, r[6], campaignId, row, now, window)
      if dup then
        rec.s = 'skipped'; rec.c = 'ALREADY_SENT'; rec.d = dup
        already[#already + 1] = row
        already[#already + 1] = dup
      elseif cancelled then
        rec.s = 'cancelled'
      elseif expired then
        rec.s = 'expired'
      end
    else
      rec = { p = r[3], s = r[2], c = r[4], d = r[5] }
    end
    -- Reopened: a job number no earlier job of this row had (BullMQ may still keep that job,
    -- completed, and would take a new one under its ID for a duplicate).
    if old then rec.k = (old.k or 0) + 1 end
    fresh[#fresh + 1] = row
    fresh[#fresh + 1] = encodeRow(rec)
    delta[rec.s] = (delta[rec.s] or 0) + 1
    if old then
      delta[old.s] = (delta[old.s] or 0) - 1
      if rec.s == 'queued' then reopened = reopened + 1 end
    else
      added = added + 1
    end
    if rec.s == 'queued' then
      queuedNow[#queuedNow + 1] = row
      local list = laneKeyOf(pendingKey, rec)
      entries[list] = entries[list] or {}
      table.insert(entries[list], entryOf(row, rec.k))
      anyEntry = true
    end
  end
end
if #fresh > 0 then
  for i = 1, #fresh, 2 do storeRow(rowsKey, fresh[i], fresh[i + 1]) end
  for status, count in pairs(delta) do
    if count ~= 0 then redis.call('HINCRBY', campaignKey, 'n:' .. status, count) end
  end
  if added > 0 then redis.call('HINCRBY', campaignKey, 'total', added) end
  if anyEntry then
    pushTo(entries, 'RPUSH')
    activate(campaignKey, activeKey, campaignId)
    -- A finished campaign with rows to send again is not finished any more.
    redis.call('HDEL', campaignKey, 'finishedAt')
  end
end
return { queuedNow, already, reopened }
