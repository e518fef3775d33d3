/**
 * Lua for the campaign ledger. Each state change and its counters move in one script, so a
 * crash or a duplicate job can never leave the counters out of step with the rows.
 * Row records are JSON: {p: phone, s: status, a: attempts, w: wamid, c: error code, d: detail,
 * k: requeue number of the job that owns the row (absent = 0, the producer's job)}.
 * Campaign hash fields besides the counters: paused/pausedReason/pausedAt, cancelled,
 * recentSends/recentFails (sends so far, and failures among the last `window` of them, whose
 * bits are a ring in the `recent` key: the error-spike brake).
 */

export const FINAL = `local FINAL = { sent = true, failed = true, rejected = true, skipped = true, unknown = true, cancelled = true }`;

// A campaign is complete when ingest is done and every row has a final status.
const COMPLETE_IF_DONE = `
local function completeIfDone(campaignKey, now)
  local f = redis.call('HMGET', campaignKey, 'ingestDone', 'total', 'n:sent', 'n:failed', 'n:rejected', 'n:skipped', 'n:unknown', 'n:cancelled', 'finishedAt')
  if f[1] ~= '1' or f[9] then return 0 end
  local answered = 0
  for i = 3, 8 do answered = answered + tonumber(f[i] or '0') end
  if answered >= tonumber(f[2] or '0') then
    redis.call('HSET', campaignKey, 'finishedAt', now)
    -- Every row has its answer: a pause (say, the brake tripping on the last row) has nothing left to hold.
    redis.call('HDEL', campaignKey, 'paused', 'pausedReason', 'pausedAt')
    return 1
  end
  return 0
end`;

/**
 * KEYS: campaign, rows. ARGV[1]: JSON array of [row, status, phone, code?, detail?].
 * Returns the rows that need a job. One argument and a handful of commands per chunk, not
 * per row: this runs once per 1,000 rows on the ingest path, where every allocation counts.
 */
export const RECORD_INGESTED = `
local campaignKey, rowsKey = KEYS[1], KEYS[2]
local rows = cjson.decode(ARGV[1])
local fields = {}
for i, r in ipairs(rows) do fields[i] = r[1] end
local existing = redis.call('HMGET', rowsKey, unpack(fields))
local needJob, fresh, added = {}, {}, {}
for i, r in ipairs(rows) do
  local row, status = r[1], r[2]
  local current = existing[i]
  if not current then
    local rec = { p = r[3], s = status }
    if r[4] then rec.c = r[4]; rec.d = r[5] end
    fresh[#fresh + 1] = row
    fresh[#fresh + 1] = cjson.encode(rec)
    added[status] = (added[status] or 0) + 1
    if status == 'queued' then needJob[#needJob + 1] = row end
  elseif cjson.decode(current).s == 'queued' then
    needJob[#needJob + 1] = row
  end
end
if #fresh > 0 then
  redis.call('HSET', rowsKey, unpack(fresh))
  local total = 0
  for status, count in pairs(added) do
    redis.call('HINCRBY', campaignKey, 'n:' .. status, count)
    total = total + count
  end
  redis.call('HINCRBY', campaignKey, 'total', total)
end
return needJob`;

/** KEYS: campaign. ARGV: now. Returns 1 when this call completed the campaign. */
export const FINISH_INGEST = `
${COMPLETE_IF_DONE}
redis.call('HSET', KEYS[1], 'ingestDone', '1')
return completeIfDone(KEYS[1], ARGV[1])`;

// Moves a row between statuses, keeping the counters in step.
const MOVE = `
local function move(campaignKey, rec, status)
  redis.call('HINCRBY', campaignKey, 'n:' .. rec.s, -1)
  redis.call('HINCRBY', campaignKey, 'n:' .. status, 1)
  rec.s = status
end`;

// Sets a row aside for the next resume: a new owner number, and the job to enqueue under it.
export const PARK = `
local function park(rowsKey, requeueKey, row, rec, jobJson)
  rec.k = (rec.k or 0) + 1
  redis.call('HSET', rowsKey, row, cjson.encode(rec))
  redis.call('HSET', requeueKey, row, cjson.encode({ k = rec.k, job = jobJson }))
end`;

const PAUSE_IF_RUNNING = `
local function pauseIfRunning(campaignKey, reason, now)
  local f = redis.call('HMGET', campaignKey, 'paused', 'cancelled')
  if f[1] == '1' or f[2] == '1' then return 0 end
  redis.call('HSET', campaignKey, 'paused', '1', 'pausedReason', reason, 'pausedAt', now)
  return 1
end`;

/**
 * KEYS: campaign, rows. ARGV: now, then (row, job's requeue number) for each row claimed.
 * Returns {outcome, status-or-attempts} per row, flat. Order matters: a settled row answers
 * first; only the row's owner goes further; a row left `sending` is in doubt even when
 * paused (the pause must not hide a possible send); a cancelled or paused campaign starts
 * nothing (`paused`: the caller parks the job with PARK_WAITING, which carries its payload;
 * the hot path does not). The rows of one call are the claims a worker made in the same
 * turn of its event loop (src/redis/tick-batch.ts); each is decided on its own.
 */
export const CLAIM = `
${FINAL}
${COMPLETE_IF_DONE}
${MOVE}
local function claim(campaignKey, rowsKey, row, owner, now)
  local json = redis.call('HGET', rowsKey, row)
  if not json then return 'missing', '' end
  local rec = cjson.decode(json)
  if FINAL[rec.s] then return 'settled', rec.s end
  if (rec.k or 0) ~= tonumber(owner) then return 'stale', '' end
  if rec.s == 'sending' then return 'in-doubt', tostring(rec.a or 0) end
  local held = redis.call('HMGET', campaignKey, 'cancelled', 'paused')
  if held[1] == '1' then
    move(campaignKey, rec, 'cancelled')
    redis.call('HSET', rowsKey, row, cjson.encode(rec))
    completeIfDone(campaignKey, now)
    return 'settled', 'cancelled'
  end
  if held[2] == '1' then return 'paused', '' end
  rec.a = (rec.a or 0) + 1
  move(campaignKey, rec, 'sending')
  redis.call('HSET', rowsKey, row, cjson.encode(rec))
  return 'claimed', tostring(rec.a)
end
local out = {}
for i = 2, #ARGV, 2 do
  local outcome, value = claim(KEYS[1], KEYS[2], ARGV[i], ARGV[i + 1], ARGV[1])
  out[#out + 1] = outcome
  out[#out + 1] = value
end
return out`;

/** Arguments per row in a SETTLE call, after the SETTLE_SHARED_ARGS shared ones. */
export const SETTLE_ROW_ARGS = 7;
export const SETTLE_SHARED_ARGS = 4;

/**
 * KEYS: campaign, rows, wamid index, payloads, recent.
 * ARGV: campaignId, now, brake window, brake share; then for each row: row, status, wamid,
 * code, detail, job's requeue number, job JSON.
 * First final answer wins; only the row's owner may answer. A failed or unknown row keeps
 * its job so `campaign retry` can send it again. Every sent/failed answer feeds the
 * error-spike brake: when more than share × window of the last `window` failed, it pauses.
 * Returns {status afterwards, 1 if this answer completed the campaign, 1 if it paused it}
 * per row, flat. The rows of one call are the answers a worker got in the same turn of
 * its event loop (src/redis/tick-batch.ts); they are applied in order, as separate calls
 * would be.
 */
export const SETTLE = `
${FINAL}
${COMPLETE_IF_DONE}
${MOVE}
${PAUSE_IF_RUNNING}
local campaignKey, rowsKey, wamidsKey, payloadsKey, recentKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local campaignId, now, window, share = ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])

local function brake(status, code, detail)
  if window <= 0 or (status ~= 'sent' and status ~= 'failed') then return 0 end
  local bit = 0
  if status == 'failed' then bit = 1 end
  -- A ring of 'window' bits: this send's bit replaces the one from 'window' sends ago.
  local pos = redis.call('HINCRBY', campaignKey, 'recentSends', 1)
  local old = redis.call('BITFIELD', recentKey, 'SET', 'u1', '#' .. ((pos - 1) % window), bit)[1]
  local fails = 0
  if bit ~= old then
    fails = redis.call('HINCRBY', campaignKey, 'recentFails', bit - old)
  elseif bit == 1 then
    fails = tonumber(redis.call('HGET', campaignKey, 'recentFails') or '0')
  end
  if bit == 1 and fails > window * share then
    local reason = 'ERROR_SPIKE: ' .. fails .. ' of the last ' .. window .. ' sends failed permanently (latest ' .. code .. ': ' .. detail .. ')'
    return pauseIfRunning(campaignKey, reason, now)
  end
  return 0
end

local function settle(row, status, wamid, code, detail, owner, job)
  local json = redis.call('HGET', rowsKey, row)
  if not json then return 'missing', 0, false end
  local rec = cjson.decode(json)
  if FINAL[rec.s] or (rec.k or 0) ~= tonumber(owner) then return rec.s, 0, false end
  if status == 'abandoned' then
    if rec.s == 'sending' then status = 'unknown' else status = 'failed' end
  end
  move(campaignKey, rec, status)
  if wamid ~= '' then rec.w = wamid end
  if code ~= '' then rec.c = code; rec.d = detail elseif status == 'sent' then rec.c = nil; rec.d = nil end
  redis.call('HSET', rowsKey, row, cjson.encode(rec))
  if status == 'sent' then
    redis.call('HSET', wamidsKey, wamid, campaignId .. '/' .. row)
    if (rec.k or 0) > 0 then redis.call('HDEL', payloadsKey, row) end
  elseif (status == 'failed' or status == 'unknown') and job ~= '' then
    redis.call('HSET', payloadsKey, row, job)
  end
  return status, brake(status, code, detail), true
end

local out = {}
local lastFinal = 0
for i = ${SETTLE_SHARED_ARGS + 1}, #ARGV, ${SETTLE_ROW_ARGS} do
  local status, paused, applied = settle(ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3], ARGV[i + 4], ARGV[i + 5], ARGV[i + 6])
  out[#out + 1] = status
  out[#out + 1] = 0
  out[#out + 1] = paused
  if applied and FINAL[status] then lastFinal = #out - 1 end
end
-- Checked once, after every answer of the call is in: the answer that completed the
-- campaign is the call's last final one.
if lastFinal > 0 and completeIfDone(campaignKey, now) == 1 then out[lastFinal] = 1 end
return out`;

/**
 * KEYS: campaign, rows, requeue. ARGV: row, job's requeue number, job JSON, code, detail, now.
 * The claimed row goes back to queued, set aside for resume; the campaign pauses with the
 * code as its reason (the first halt's reason stays). On a cancelled campaign the row is cancelled
 * (and, if it was the last open row, the campaign completes).
 */
export const HALT = `
${COMPLETE_IF_DONE}
${MOVE}
${PARK}
${PAUSE_IF_RUNNING}
local json = redis.call('HGET', KEYS[2], ARGV[1])
if not json then return {'missing', 0} end
local rec = cjson.decode(json)
if rec.s ~= 'sending' or (rec.k or 0) ~= tonumber(ARGV[2]) then return {rec.s, 0} end
rec.c = ARGV[4]; rec.d = ARGV[5]
if redis.call('HGET', KEYS[1], 'cancelled') == '1' then
  move(KEYS[1], rec, 'cancelled')
  redis.call('HSET', KEYS[2], ARGV[1], cjson.encode(rec))
  return {'cancelled', completeIfDone(KEYS[1], ARGV[6])}
end
move(KEYS[1], rec, 'queued')
park(KEYS[2], KEYS[3], ARGV[1], rec, ARGV[3])
return {'queued', 0, pauseIfRunning(KEYS[1], ARGV[4] .. ': ' .. ARGV[5], ARGV[6])}`;

/** KEYS: campaign. ARGV: reason, now. */
export const PAUSE = `
${PAUSE_IF_RUNNING}
local f = redis.call('HMGET', KEYS[1], 'definition', 'cancelled', 'finishedAt', 'paused')
if not f[1] then return 'missing' end
if f[2] == '1' then return 'cancelled' end
if f[3] then return 'completed' end
if f[4] == '1' then return 'already-paused' end
pauseIfRunning(KEYS[1], ARGV[1], ARGV[2])
return 'paused'`;

/** KEYS: campaign, recent. The brake's window starts empty again: old failures must not re-pause at once. */
export const RESUME = `
local f = redis.call('HMGET', KEYS[1], 'definition', 'cancelled', 'paused')
if not f[1] then return 'missing' end
if f[2] == '1' then return 'cancelled' end
if f[3] ~= '1' then return 'not-paused' end
redis.call('HDEL', KEYS[1], 'paused', 'pausedReason', 'pausedAt', 'recentFails', 'recentSends')
redis.call('DEL', KEYS[2])
return 'resumed'`;

/** KEYS: campaign. ARGV: now. */
export const CANCEL = `
local f = redis.call('HMGET', KEYS[1], 'definition', 'finishedAt', 'cancelled')
if not f[1] then return 'missing' end
if f[2] and f[3] ~= '1' then return 'completed' end
redis.call('HSET', KEYS[1], 'cancelled', '1')
redis.call('HDEL', KEYS[1], 'paused', 'pausedReason', 'pausedAt')
return 'cancelled'`;

/**
 * KEYS: campaign, rows, requeue. ARGV: first row, last row, now.
 * Queued rows in the range become cancelled (their set-aside jobs are forgotten); rows in
 * flight keep their answer. Returns how many were cancelled. Their jobs, now stale, leave the
 * queue by the controls' sweep.
 */
export const CANCEL_ROWS = `
${COMPLETE_IF_DONE}
${MOVE}
local first, last = tonumber(ARGV[1]), tonumber(ARGV[2])
local fields = {}
for row = first, last do fields[#fields + 1] = tostring(row) end
local values = redis.call('HMGET', KEYS[2], unpack(fields))
local cancelled = 0
for i, json in ipairs(values) do
  if json then
    local rec = cjson.decode(json)
    if rec.s == 'queued' then
      move(KEYS[1], rec, 'cancelled')
      redis.call('HSET', KEYS[2], fields[i], cjson.encode(rec))
      redis.call('HDEL', KEYS[3], fields[i])
      cancelled = cancelled + 1
    end
  end
end
completeIfDone(KEYS[1], ARGV[3])
return cancelled`;

/**
 * KEYS: campaign, rows, requeue, payloads. ARGV: first row, last row, codes (comma-joined,
 * '' = any), failed ('1'), unknown ('1').
 * Chosen rows go back to queued under a new owner number and are set aside to be enqueued;
 * the campaign is no longer finished. Returns {requeued, rows without a stored job}.
 */
export const MARK_FOR_RETRY = `
${MOVE}
-- Checked here, not only by the caller: a cancel may land between its check and this page.
if redis.call('HGET', KEYS[1], 'cancelled') == '1' then return {0, 0} end
local first, last = tonumber(ARGV[1]), tonumber(ARGV[2])
local codes = {}
for code in string.gmatch(ARGV[3], '[^,]+') do codes[code] = true end
local anyCode = ARGV[3] == ''
local fields = {}
for row = first, last do fields[#fields + 1] = tostring(row) end
local values = redis.call('HMGET', KEYS[2], unpack(fields))
local requeued, noPayload = 0, 0
for i, json in ipairs(values) do
  if json then
    local rec = cjson.decode(json)
    local chosen = (rec.s == 'failed' and ARGV[4] == '1' and (anyCode or codes[rec.c or ''])) or (rec.s == 'unknown' and ARGV[5] == '1')
    if chosen then
      local job = redis.call('HGET', KEYS[4], fields[i])
      if job then
        move(KEYS[1], rec, 'queued')
        rec.k = (rec.k or 0) + 1
        redis.call('HSET', KEYS[2], fields[i], cjson.encode(rec))
        redis.call('HSET', KEYS[3], fields[i], cjson.encode({ k = rec.k, job = job }))
        redis.call('HDEL', KEYS[4], fields[i])
        requeued = requeued + 1
      else
        noPayload = noPayload + 1
      end
    end
  end
end
if requeued > 0 then redis.call('HDEL', KEYS[1], 'finishedAt') end
return {requeued, noPayload}`;

/**
 * KEYS: campaign, rows, requeue. ARGV: row, owner number, job JSON, row, owner number, job JSON…
 * For a paused campaign only: each row still queued and owned by that job is parked (new
 * owner number, job set aside for resume). A row already set aside has a newer owner, so
 * it is not parked twice. Returns the rows parked.
 */
export const PARK_WAITING = `
${PARK}
local out = {}
if redis.call('HGET', KEYS[1], 'paused') ~= '1' then return out end
for i = 1, #ARGV, 3 do
  local json = redis.call('HGET', KEYS[2], ARGV[i])
  if json then
    local rec = cjson.decode(json)
    if rec.s == 'queued' and (rec.k or 0) == tonumber(ARGV[i + 1]) then
      park(KEYS[2], KEYS[3], ARGV[i], rec, ARGV[i + 2])
      out[#out + 1] = ARGV[i]
    end
  end
end
return out`;

/** KEYS: requeue. ARGV: row, owner number, row, owner number… Forgets entries that were enqueued (unless set aside again since). */
export const FORGET_REQUEUED = `
for i = 1, #ARGV, 2 do
  local json = redis.call('HGET', KEYS[1], ARGV[i])
  if json and cjson.decode(json).k == tonumber(ARGV[i + 1]) then redis.call('HDEL', KEYS[1], ARGV[i]) end
end
return 0`;
