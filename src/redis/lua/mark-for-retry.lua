#!lua
--[[
  Marks one page of rows (first..last) for retry. Chosen rows (failed, with one of the
  codes, and/or unknown) go back to queued under a new job number, at the end of the
  backlog; the campaign is no longer finished. A row without its values (written by a
  build before 0.1.0, which kept them only in the job) cannot be sent again: it is counted,
  not moved. A recipient who opted out of marketing is never sent again: a row that failed
  with 131050 (Meta's own answer that they did) is not chosen, nor a row whose phone is in
  the number's opt-outs now when the campaign is one opt-outs apply to (includes/opted-out.lua).
  A row that failed with 130472 (the user is in Meta's experiment: a resend gets the same
  error) is chosen only when the caller named that code.

  Input:
    KEYS[1] campaign   hash     <scope>:campaign:<id>
    KEYS[2] rows       hash     <scope>:campaign:<id>:rows (and its lists `:<n>`: includes/row-store.lua)
    KEYS[3] pending    list     <scope>:campaign:<id>:pending
    KEYS[4] active     zset     <scope>:feed:<number>:campaigns
    KEYS[5] optouts    hash     <scope>:optouts:<number> (phone → source JSON)

    ARGV[1] from-row       first row
    ARGV[2] to-row         last row
    ARGV[3] codes          error codes, comma-joined ('' = any)
    ARGV[4] failed         '1' = choose failed rows (with one of the codes)
    ARGV[5] unknown        '1' = choose unknown rows
    ARGV[6] campaign-id    campaign ID
    ARGV[7] clock          ms added to Redis's TIME (0 in production), or '@<ms>': a stopped clock (includes/clock.lua)
    ARGV[8] cap-hold       hold for 131049 (ms): a row that failed with it less than this long ago is not chosen
    ARGV[9] us-area-codes  US area codes, comma-joined ('' = none): a row to +1 with one of them that failed
                           with 131049 is never chosen (a MARKETING campaign while Meta pauses US marketing)

  Output:
    {rows requeued, rows chosen but without their values, 131049 rows held back, the earliest
    time (ms) one of them may be retried (0 if none), US marketing rows left failed, rows of
    opted-out recipients left as they are, 130472 rows left failed}; {0, 0, 0, 0, 0, 0, 0} on a
    cancelled campaign
]]

-- Includes
--- @include "clock"
--- @include "row-codec"
--- @include "row-store"
--- @include "move"
--- @include "backlog"
--- @include "opted-out"

local campaignKey, rowsKey, pendingKey, activeKey, optOutsKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
-- Checked here, not only by the caller: a cancel may land between its check and this page.
if redis.call('HGET', campaignKey, 'cancelled') == '1' then return {0, 0, 0, 0, 0, 0, 0} end
local now, hold = ledgerNow(ARGV[7]), tonumber(ARGV[8] or '0')
local held, heldUntil = 0, 0
local first, last = tonumber(ARGV[1]), tonumber(ARGV[2])
local codes = {}
for code in string.gmatch(ARGV[3], '[^,]+') do codes[code] = true end
local anyCode = ARGV[3] == ''
local usAreas = {}
for area in string.gmatch(ARGV[9] or '', '[^,]+') do usAreas[area] = true end
local usMarketing = 0
local optedOut = 0
local experiment = 0
local fields = {}
for row = first, last do fields[#fields + 1] = tostring(row) end
local values = {}
for i, field in ipairs(fields) do values[i] = rowStored(rowsKey, field) end
local entries = {}
local anyEntry = false
local requeued = 0
local noPayload = 0
for i, json in ipairs(values) do
  if json then
    local rec = decodeRow(json)
    local chosen = (rec.s == 'failed' and ARGV[4] == '1' and (anyCode or codes[rec.c or ''])) or (rec.s == 'unknown' and ARGV[5] == '1')
    -- Meta's experiment (130472): a resend gets the same error, so only the operator's own choice of the code sends it.
    if chosen and rec.s == 'failed' and rec.c == '130472' and anyCode then
      chosen = false
      experiment = experiment + 1
    end
    -- Meta's pause of US marketing: its 131049 comes back on every resend.
    if chosen and rec.s == 'failed' and rec.c == '131049' and usAreas[string.match(rec.p or '', '^%+1(%d%d%d)%d%d%d%d%d%d%d$') or ''] then
      chosen = false
      usMarketing = usMarketing + 1
    end
    if chosen and ((rec.s == 'failed' and rec.c == '131050') or
        (optOutsApply(campaignKey) and redis.call('HEXISTS', optOutsKey, rec.p or '') == 1)) then
      chosen = false
      optedOut = optedOut + 1
    end
    -- Meta's ecosystem limit (131049): sending again within 24 h only fails again.
    if chosen and rec.s == 'failed' and rec.c == '131049' and rec.ft and now - rec.ft < hold then
      chosen = false
      held = held + 1
      if heldUntil == 0 or rec.ft + hold < heldUntil then heldUntil = rec.ft + hold end
    end
    if chosen then
      if rec.v then
        move(campaignKey, rec, 'queued', now)
        rec.k = (rec.k or 0) + 1
        -- Its next failure is its own: apply-statuses.lua keeps a failure's code only when it is the first.
        rec.ft = nil
        storeRow(rowsKey, fields[i], encodeRow(rec))
        local list = laneKeyOf(pendingKey, rec)
        entries[list] = entries[list] or {}
        table.insert(entries[list], entryOf(fields[i], rec.k))
        anyEntry = true
        requeued = requeued + 1
      else
        noPayload = noPayload + 1
      end
    end
  end
end
if anyEntry then
  pushTo(entries, 'RPUSH')
  activate(campaignKey, activeKey, ARGV[6])
  redis.call('HDEL', campaignKey, 'finishedAt')
end
return {requeued, noPayload, held, heldUntil, usMarketing, optedOut, experiment}
