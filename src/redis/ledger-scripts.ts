/**
 * Lua for the campaign ledger. Each state change and its counters move in one script, so a
 * crash or a duplicate job can never leave the counters out of step with the rows.
 * Row records are JSON: {p: phone, s: status, a: attempts, w: wamid, c: error code, d: detail,
 * k: requeue number of the job that owns the row (absent = 0, the producer's job), v: the
 * template values, h: the header media link, f: the message's fingerprint}. The worker sends
 * what the row holds (p, v, h), never what its job says.
 * The duplicate-send guard of a phone number is two keys: `sent` (fingerprint → "campaign/
 * row/ms" of the last claim of that message) and `sent-at` (fingerprint → ms, for pruning
 * entries older than the window). A claim records its row there before the request leaves.
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
 * The entry of the duplicate-send guard for fingerprint `f` that another row recorded less
 * than `window` ms before `now`, as a sentence for the row's detail; nil when there is none.
 */
const PRIOR_SEND = `
local function priorSend(sentKey, f, campaignId, row, now, window)
  if window <= 0 or not f or f == '' then return nil end
  local entry = redis.call('HGET', sentKey, f)
  if not entry then return nil end
  local cid, r, at = string.match(entry, '^(.*)/(%d+)/(%d+)$')
  if not at or (cid == campaignId and r == tostring(row)) then return nil end
  local age = tonumber(now) - tonumber(at)
  if age >= window then return nil end
  return 'campaign ' .. cid .. ' row ' .. r .. ' sent the same message (template, language, values) to this recipient from this number ' ..
    string.format('%.1f', age / 3600000) .. ' h ago, within DUPLICATE_WINDOW_HOURS; not sent again (--allow-repeat sends it anyway)'
end`;

// Forgets the guard's entry for a row whose request was refused: it was not sent, so a later send of the same message is no repeat.
const FORGET_SEND = `
local function forgetSend(sentKey, sentAtKey, f, campaignId, row)
  if not f then return end
  local entry = redis.call('HGET', sentKey, f)
  local own = campaignId .. '/' .. row .. '/'
  if entry and string.sub(entry, 1, #own) == own then
    redis.call('HDEL', sentKey, f)
    redis.call('ZREM', sentAtKey, f)
  end
end`;

/**
 * KEYS: campaign, rows, sent, sent-at. ARGV: JSON array of rows, campaign ID, now (ms),
 * duplicate window (ms). A row is [row, 'queued', phone, values, header link or '',
 * fingerprint] or [row, 'rejected'|'skipped', phone, code, detail].
 * Returns {rows that need a job, {row, detail, …} turned ALREADY_SENT, rows reopened}.
 * A rejected or skipped row (never sent) takes the new verdict: a fixed file sent again, an
 * opt-out lifted, `--allow-repeat`. Every other existing row keeps its state, so no row is
 * sent twice. One argument and a handful of commands per chunk, not per row: this runs
 * once per chunk on the ingest path, where every allocation counts.
 */
export const RECORD_INGESTED = `
${PRIOR_SEND}
local campaignKey, rowsKey, sentKey = KEYS[1], KEYS[2], KEYS[3]
local rows = cjson.decode(ARGV[1])
local campaignId, now, window = ARGV[2], ARGV[3], tonumber(ARGV[4])
local flags = redis.call('HMGET', campaignKey, 'cancelled', 'allowRepeat')
local cancelled = flags[1] == '1'
if flags[2] == '1' then window = 0 end
local fields = {}
for i, r in ipairs(rows) do fields[i] = r[1] end
local existing = redis.call('HMGET', rowsKey, unpack(fields))
local needJob, already, fresh, delta = {}, {}, {}, {}
local added, reopened = 0, 0
for i, r in ipairs(rows) do
  local row = r[1]
  local current = existing[i]
  local old = nil
  if current then old = cjson.decode(current) end
  if old and old.s == 'queued' then
    needJob[#needJob + 1] = row
  elseif not old or old.s == 'rejected' or old.s == 'skipped' then
    local rec
    if r[2] == 'queued' then
      rec = { p = r[3], s = 'queued', v = r[4], f = r[6] }
      if r[5] ~= '' then rec.h = r[5] end
      local dup = priorSend(sentKey, r[6], campaignId, row, now, window)
      if dup then
        rec.s = 'skipped'; rec.c = 'ALREADY_SENT'; rec.d = dup
        already[#already + 1] = row
        already[#already + 1] = dup
      elseif cancelled then
        rec.s = 'cancelled'
      end
    else
      rec = { p = r[3], s = r[2], c = r[4], d = r[5] }
    end
    fresh[#fresh + 1] = row
    fresh[#fresh + 1] = cjson.encode(rec)
    delta[rec.s] = (delta[rec.s] or 0) + 1
    if old then
      delta[old.s] = (delta[old.s] or 0) - 1
      if rec.s == 'queued' then reopened = reopened + 1 end
    else
      added = added + 1
    end
    if rec.s == 'queued' then needJob[#needJob + 1] = row end
  end
end
if #fresh > 0 then
  redis.call('HSET', rowsKey, unpack(fresh))
  for status, count in pairs(delta) do
    if count ~= 0 then redis.call('HINCRBY', campaignKey, 'n:' .. status, count) end
  end
  if added > 0 then redis.call('HINCRBY', campaignKey, 'total', added) end
  -- A finished campaign with rows to send again is not finished any more.
  if #needJob > 0 then redis.call('HDEL', campaignKey, 'finishedAt') end
end
return { needJob, already, reopened }`;

/** KEYS: campaign. ARGV: now. Returns 1 when this call completed the campaign. The file has been read to its end. */
export const FINISH_INGEST = `
${COMPLETE_IF_DONE}
redis.call('HSET', KEYS[1], 'ingestDone', '1')
redis.call('HDEL', KEYS[1], 'ingestInterrupted')
return completeIfDone(KEYS[1], ARGV[1])`;

/**
 * KEYS: campaign, recent. A `send --campaign` that continues an interrupted ingest lifts the
 * pause the interruption left, and only that one (the stored reason is the pause's own: a
 * pause an operator or a halting code set since then stays). Returns 1 if lifted.
 */
export const LIFT_INGEST_PAUSE = `
local f = redis.call('HMGET', KEYS[1], 'ingestInterrupted', 'paused', 'pausedReason', 'cancelled')
if not f[1] or f[2] ~= '1' or f[3] ~= f[1] or f[4] == '1' then return 0 end
redis.call('HDEL', KEYS[1], 'paused', 'pausedReason', 'pausedAt', 'recentFails', 'recentSends')
redis.call('DEL', KEYS[2])
return 1`;

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

/** Values per row in a CLAIM answer: outcome, status or attempts, then phone, values JSON, header link when claimed. */
export const CLAIM_ANSWER_WIDTH = 5;

/**
 * KEYS: campaign, rows, sent, sent-at. ARGV: now (ms), duplicate window (ms), campaign ID,
 * then (row, job's requeue number) for each row claimed.
 * Returns per row, flat: outcome, status-or-attempts, and for a claimed row its phone, its
 * values as JSON ('' if the row has none: written by an older version) and header link.
 * Order matters: a settled row answers first; only the row's owner goes further; a row left
 * `sending` is in doubt even when paused (the pause must not hide a possible send); a
 * cancelled or paused campaign starts nothing (`paused`: the caller parks the job with
 * PARK_WAITING, which carries its payload; the hot path does not); a message this number
 * already sent within the window (another row, any campaign) is skipped; only then is the
 * row `sending`, and its message recorded in the guard. The rows of one call are the claims
 * a worker made in the same turn of its event loop (src/redis/tick-batch.ts); each is
 * decided on its own.
 */
export const CLAIM = `
${FINAL}
${COMPLETE_IF_DONE}
${MOVE}
${PRIOR_SEND}
local campaignKey, rowsKey, sentKey, sentAtKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local now, window, campaignId = ARGV[1], tonumber(ARGV[2]), ARGV[3]
local held = redis.call('HMGET', campaignKey, 'cancelled', 'paused', 'allowRepeat')
local function claim(row, owner)
  local json = redis.call('HGET', rowsKey, row)
  if not json then return 'missing', '' end
  local rec = cjson.decode(json)
  if FINAL[rec.s] then return 'settled', rec.s end
  if (rec.k or 0) ~= tonumber(owner) then return 'stale', '' end
  if rec.s == 'sending' then return 'in-doubt', tostring(rec.a or 0) end
  if held[1] == '1' then
    move(campaignKey, rec, 'cancelled')
    redis.call('HSET', rowsKey, row, cjson.encode(rec))
    completeIfDone(campaignKey, now)
    return 'settled', 'cancelled'
  end
  if held[2] == '1' then return 'paused', '' end
  if window > 0 and rec.f then
    local dup = nil
    if held[3] ~= '1' then dup = priorSend(sentKey, rec.f, campaignId, row, now, window) end
    if dup then
      move(campaignKey, rec, 'skipped')
      rec.c = 'ALREADY_SENT'; rec.d = dup
      redis.call('HSET', rowsKey, row, cjson.encode(rec))
      completeIfDone(campaignKey, now)
      return 'settled', 'skipped'
    end
    redis.call('HSET', sentKey, rec.f, campaignId .. '/' .. row .. '/' .. now)
    redis.call('ZADD', sentAtKey, now, rec.f)
  end
  rec.a = (rec.a or 0) + 1
  move(campaignKey, rec, 'sending')
  redis.call('HSET', rowsKey, row, cjson.encode(rec))
  local values = ''
  if rec.v then values = cjson.encode(rec.v) end
  return 'claimed', tostring(rec.a), rec.p, values, rec.h or ''
end
local out = {}
for i = 4, #ARGV, 2 do
  local outcome, value, phone, values, header = claim(ARGV[i], ARGV[i + 1])
  out[#out + 1] = outcome
  out[#out + 1] = value
  out[#out + 1] = phone or ''
  out[#out + 1] = values or ''
  out[#out + 1] = header or ''
end
-- The guard forgets messages older than the window, a few per call, so it stays the size of the window.
if window > 0 then
  local expired = redis.call('ZRANGEBYSCORE', sentAtKey, '-inf', tonumber(now) - window, 'LIMIT', 0, 100)
  if #expired > 0 then
    redis.call('ZREM', sentAtKey, unpack(expired))
    redis.call('HDEL', sentKey, unpack(expired))
  end
end
return out`;

/** Arguments per row in a SETTLE call, after the SETTLE_SHARED_ARGS shared ones. */
export const SETTLE_ROW_ARGS = 7;
export const SETTLE_SHARED_ARGS = 4;

/**
 * KEYS: campaign, rows, wamid index, payloads, recent, sent, sent-at.
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
${FORGET_SEND}
local campaignKey, rowsKey, wamidsKey, payloadsKey, recentKey, sentKey, sentAtKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7]
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
  -- Meta refused it: not sent, so a later send of the same message is not a repeat. (An
  -- unknown row may have been sent: it keeps its entry.)
  if status == 'failed' then forgetSend(sentKey, sentAtKey, rec.f, campaignId, row) end
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
 * KEYS: campaign, rows, requeue, sent, sent-at. ARGV: row, job's requeue number, job JSON,
 * code, detail, now, campaign ID. The request was refused, so the duplicate guard forgets it.
 * The claimed row goes back to queued, set aside for resume; the campaign pauses with the
 * code as its reason (the first halt's reason stays). On a cancelled campaign the row is cancelled
 * (and, if it was the last open row, the campaign completes).
 */
export const HALT = `
${COMPLETE_IF_DONE}
${MOVE}
${PARK}
${PAUSE_IF_RUNNING}
${FORGET_SEND}
local json = redis.call('HGET', KEYS[2], ARGV[1])
if not json then return {'missing', 0} end
local rec = cjson.decode(json)
if rec.s ~= 'sending' or (rec.k or 0) ~= tonumber(ARGV[2]) then return {rec.s, 0} end
forgetSend(KEYS[4], KEYS[5], rec.f, ARGV[7], ARGV[1])
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

/**
 * KEYS: campaign. An ingest that was interrupted will not be continued: the rows read are
 * all the campaign has, so it can complete once they are answered.
 */
export const CANCEL = `
local f = redis.call('HMGET', KEYS[1], 'definition', 'finishedAt', 'cancelled', 'ingestInterrupted')
if not f[1] then return 'missing' end
if f[2] and f[3] ~= '1' then return 'completed' end
redis.call('HSET', KEYS[1], 'cancelled', '1')
redis.call('HDEL', KEYS[1], 'paused', 'pausedReason', 'pausedAt')
if f[4] then
  redis.call('HSET', KEYS[1], 'ingestDone', '1')
  redis.call('HDEL', KEYS[1], 'ingestInterrupted')
end
return 'cancelled'`;

/**
 * KEYS: campaign. ARGV: reason, now. Pauses the campaign and keeps the reason as the mark of
 * an unfinished ingest (LIFT_INGEST_PAUSE compares them). Returns 1 if marked (the campaign
 * is not cancelled).
 */
export const INGEST_INTERRUPTED = `
${PAUSE_IF_RUNNING}
local f = redis.call('HMGET', KEYS[1], 'definition', 'cancelled', 'finishedAt')
if not f[1] or f[2] == '1' then return 0 end
redis.call('HSET', KEYS[1], 'ingestInterrupted', ARGV[1])
redis.call('HDEL', KEYS[1], 'ingestDone', 'finishedAt')
pauseIfRunning(KEYS[1], ARGV[1], ARGV[2])
return 1`;

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
