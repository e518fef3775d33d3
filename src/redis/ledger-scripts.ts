/**
 * Lua for the campaign ledger. Each state change and its counters move in one script, so a
 * crash or a duplicate job can never leave the counters out of step with the rows.
 * Row records are JSON: {p: phone, s: status, a: attempts, w: wamid, c: error code, d: detail,
 * k: number of the job that owns the row (absent = 0, its first job), v: the
 * template values, h: the header media link, f: the message's fingerprint}. The worker sends
 * what the row holds (p, v, h), never what its job says.
 * The duplicate-send guard of a phone number is two keys: `sent` (fingerprint → "campaign/
 * row/ms" of the last claim of that message) and `sent-at` (fingerprint → ms, for pruning
 * entries older than the window). A claim records its row there before the request leaves.
 * Campaign hash fields besides the counters: paused/pausedReason/pausedAt, cancelled,
 * recentSends/recentFails (sends so far, and failures among the last `window` of them, whose
 * bits are a ring in the `recent` key: the error-spike brake), priority (0 high, 1 normal, 2 low).
 *
 * The backlog (src/queue/send-feeder.ts feeds from it): a campaign's `pending` list holds the
 * rows still to be given a job, as "row" (its first job) or "row:k" (its job number k); the
 * phone number's `active` set holds its campaigns that may have rows to feed (score: priority);
 * its `window` set holds the jobs fed and not yet done (job ID → ms fed). Every script that
 * ends a job's work takes its ID out of the window, in the same step as the row's change, so
 * the window counts exactly the jobs still to run; a row that needs a new job (parked,
 * retried, reopened) goes back to `pending` under a new job number.
 */

export const FINAL = `local FINAL = { sent = true, failed = true, rejected = true, skipped = true, unknown = true, cancelled = true, expired = true }`;

/**
 * The job ID of a row's job number k, exactly as sendJobId (src/campaigns/send-job.ts) makes
 * it; backlog entries ("row" or "row:k"); and the pushes that put a row back in the backlog
 * (the campaign joins its number's active set, at its priority).
 */
const BACKLOG = `
local function jobIdOf(campaignId, row, k)
  k = tonumber(k) or 0
  if k == 0 then return campaignId .. '-' .. row end
  return campaignId .. '-' .. row .. '-r' .. k
end
local function entryOf(row, k)
  k = tonumber(k) or 0
  if k == 0 then return tostring(row) end
  return row .. ':' .. k
end
local function activate(campaignKey, activeKey, campaignId)
  redis.call('ZADD', activeKey, tonumber(redis.call('HGET', campaignKey, 'priority') or '1'), campaignId)
end`;

// A campaign is complete when ingest is done and every row has a final status.
const COMPLETE_IF_DONE = `
local function completeIfDone(campaignKey, now)
  local f = redis.call('HMGET', campaignKey, 'ingestDone', 'total', 'n:sent', 'n:failed', 'n:rejected', 'n:skipped', 'n:unknown', 'n:cancelled', 'n:expired', 'finishedAt')
  if f[1] ~= '1' or f[10] then return 0 end
  local answered = 0
  for i = 3, 9 do answered = answered + tonumber(f[i] or '0') end
  if answered >= tonumber(f[2] or '0') then
    redis.call('HSET', campaignKey, 'finishedAt', now)
    -- Every row has its answer: a pause (say, the brake tripping on the last row) has nothing left to hold.
    redis.call('HDEL', campaignKey, 'paused', 'pausedReason', 'pausedAt')
    return 1
  end
  return 0
end`;

/**
 * Ends a campaign's backlog as a block: its rows' counts move from queued to `status`
 * (cancelled or expired) and the list goes, so this costs the same for ten rows or a
 * million. Their records still say queued, which such a campaign reports as `status`
 * (RedisLedger.rows). Returns how many rows it ended.
 */
const END_BACKLOG = `
local function endBacklog(campaignKey, pendingKey, status)
  local unfed = redis.call('LLEN', pendingKey)
  if unfed > 0 then
    redis.call('HINCRBY', campaignKey, 'n:queued', -unfed)
    redis.call('HINCRBY', campaignKey, 'n:' .. status, unfed)
    redis.call('UNLINK', pendingKey)
  end
  return unfed
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
 * KEYS: campaign, rows, sent, sent-at (unused: kept so the guard's keys travel together),
 * pending, active. ARGV: JSON array of rows, campaign ID, now (ms), duplicate window (ms).
 * A row is [row, 'queued', phone, values, header link or '', fingerprint] or
 * [row, 'rejected'|'skipped', phone, code, detail].
 * Returns {rows queued by this call, {row, detail, …} turned ALREADY_SENT, rows reopened}.
 * A row queued here joins the backlog (pending), to be fed when its turn comes. A rejected
 * or skipped row (never sent) takes the new verdict: a fixed file sent again, an opt-out
 * lifted, `--allow-repeat`; reopened, it gets a job number no earlier job used. Every other
 * existing row keeps its state, so no row is sent twice. One argument and a handful of
 * commands per chunk, not per row: this runs once per chunk on the ingest path.
 */
export const RECORD_INGESTED = `
${PRIOR_SEND}
${BACKLOG}
local campaignKey, rowsKey, sentKey, pendingKey, activeKey = KEYS[1], KEYS[2], KEYS[3], KEYS[5], KEYS[6]
local rows = cjson.decode(ARGV[1])
local campaignId, now, window = ARGV[2], ARGV[3], tonumber(ARGV[4])
local flags = redis.call('HMGET', campaignKey, 'cancelled', 'allowRepeat', 'expired')
local cancelled = flags[1] == '1'
local expired = flags[3] == '1'
if flags[2] == '1' then window = 0 end
local fields = {}
for i, r in ipairs(rows) do fields[i] = r[1] end
local existing = redis.call('HMGET', rowsKey, unpack(fields))
local queuedNow, entries, already, fresh, delta = {}, {}, {}, {}, {}
local added, reopened = 0, 0
for i, r in ipairs(rows) do
  local row = r[1]
  local current = existing[i]
  local old = nil
  if current then old = cjson.decode(current) end
  if not old or old.s == 'rejected' or old.s == 'skipped' then
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
    fresh[#fresh + 1] = cjson.encode(rec)
    delta[rec.s] = (delta[rec.s] or 0) + 1
    if old then
      delta[old.s] = (delta[old.s] or 0) - 1
      if rec.s == 'queued' then reopened = reopened + 1 end
    else
      added = added + 1
    end
    if rec.s == 'queued' then
      queuedNow[#queuedNow + 1] = row
      entries[#entries + 1] = entryOf(row, rec.k)
    end
  end
end
if #fresh > 0 then
  redis.call('HSET', rowsKey, unpack(fresh))
  for status, count in pairs(delta) do
    if count ~= 0 then redis.call('HINCRBY', campaignKey, 'n:' .. status, count) end
  end
  if added > 0 then redis.call('HINCRBY', campaignKey, 'total', added) end
  if #entries > 0 then
    redis.call('RPUSH', pendingKey, unpack(entries))
    activate(campaignKey, activeKey, campaignId)
    -- A finished campaign with rows to send again is not finished any more.
    redis.call('HDEL', campaignKey, 'finishedAt')
  end
end
return { queuedNow, already, reopened }`;

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

// Parks a row for the next resume: a new job number, and back to the front of the backlog.
const PARK = `
local function park(campaignKey, rowsKey, pendingKey, activeKey, campaignId, row, rec)
  rec.k = (rec.k or 0) + 1
  redis.call('HSET', rowsKey, row, cjson.encode(rec))
  redis.call('LPUSH', pendingKey, entryOf(row, rec.k))
  activate(campaignKey, activeKey, campaignId)
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
 * KEYS: campaign, rows, sent, sent-at, window, active, pending. ARGV: now (ms), duplicate
 * window (ms), campaign ID, then (row, job's number) for each row claimed.
 * Returns per row, flat: outcome, status-or-attempts, and for a claimed row its phone, its
 * values as JSON ('' if the row has none: written by an older version) and header link; for
 * a row settled here ('settled' by a cancel, an expiry or ALREADY_SENT) '1' in the third
 * place when that completed the campaign.
 * Order matters: a settled row answers first; only the row's owner goes further; a row left
 * `sending` is in doubt even when paused (the pause must not hide a possible send); a
 * cancelled campaign starts nothing; a paused one parks the row (back to the backlog under
 * a new job number, for resume); a message this number already sent within the window
 * (another row, any campaign) is skipped; only then is the row `sending`, and its message
 * recorded in the guard. Every outcome but `claimed` and `in-doubt` ends the job's work, so
 * its ID leaves the window here. The rows of one call are the claims a worker made in the
 * same turn of its event loop (src/redis/tick-batch.ts); each is decided on its own.
 */
export const CLAIM = `
${FINAL}
${COMPLETE_IF_DONE}
${MOVE}
${PRIOR_SEND}
${BACKLOG}
${PARK}
local campaignKey, rowsKey, sentKey, sentAtKey, windowKey, activeKey, pendingKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7]
local now, window, campaignId = ARGV[1], tonumber(ARGV[2]), ARGV[3]
local held = redis.call('HMGET', campaignKey, 'cancelled', 'paused', 'allowRepeat', 'expiresAt')
-- Expiry is judged on Redis's clock, the one every worker shares.
local expired = false
if held[4] then
  local t = redis.call('TIME')
  expired = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) >= tonumber(held[4])
end
local function claim(row, owner)
  local json = redis.call('HGET', rowsKey, row)
  if not json then return 'missing', '' end
  local rec = cjson.decode(json)
  if FINAL[rec.s] then return 'settled', rec.s end
  if (rec.k or 0) ~= tonumber(owner) then return 'stale', '' end
  if rec.s == 'sending' then return 'in-doubt', tostring(rec.a or 0) end
  if held[1] == '1' or expired then
    local final = 'cancelled'
    if held[1] ~= '1' then final = 'expired' end
    move(campaignKey, rec, final)
    redis.call('HSET', rowsKey, row, cjson.encode(rec))
    return 'settled', final, tostring(completeIfDone(campaignKey, now))
  end
  if held[2] == '1' then
    park(campaignKey, rowsKey, pendingKey, activeKey, campaignId, row, rec)
    return 'parked', ''
  end
  if window > 0 and rec.f then
    local dup = nil
    if held[3] ~= '1' then dup = priorSend(sentKey, rec.f, campaignId, row, now, window) end
    if dup then
      move(campaignKey, rec, 'skipped')
      rec.c = 'ALREADY_SENT'; rec.d = dup
      redis.call('HSET', rowsKey, row, cjson.encode(rec))
      return 'settled', 'skipped', tostring(completeIfDone(campaignKey, now))
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
  if outcome ~= 'claimed' and outcome ~= 'in-doubt' then redis.call('ZREM', windowKey, jobIdOf(campaignId, ARGV[i], ARGV[i + 1])) end
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
export const SETTLE_ROW_ARGS = 6;
export const SETTLE_SHARED_ARGS = 4;

/**
 * KEYS: campaign, rows, wamid index, recent, sent, sent-at, window.
 * ARGV: campaignId, now, brake window, brake share; then for each row: row, status, wamid,
 * code, detail, job's number.
 * First final answer wins; only the row's owner may answer. A final answer ends the job's
 * work (its ID leaves the window); `queued` does not (BullMQ runs the job again). Every
 * sent/failed answer feeds the error-spike brake: when more than share × window of the last
 * `window` failed, it pauses.
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
${BACKLOG}
local campaignKey, rowsKey, wamidsKey, recentKey, sentKey, sentAtKey, windowKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7]
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

local function settle(row, status, wamid, code, detail, owner)
  if status ~= 'queued' then redis.call('ZREM', windowKey, jobIdOf(campaignId, row, owner)) end
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
  if status == 'sent' then redis.call('HSET', wamidsKey, wamid, campaignId .. '/' .. row) end
  -- Meta refused it: not sent, so a later send of the same message is not a repeat. (An
  -- unknown row may have been sent: it keeps its entry.)
  if status == 'failed' then forgetSend(sentKey, sentAtKey, rec.f, campaignId, row) end
  return status, brake(status, code, detail), true
end

local out = {}
local lastFinal = 0
for i = ${SETTLE_SHARED_ARGS + 1}, #ARGV, ${SETTLE_ROW_ARGS} do
  local status, paused, applied = settle(ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3], ARGV[i + 4], ARGV[i + 5])
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
 * KEYS: campaign, rows, sent, sent-at, window, active, pending. ARGV: row, job's number,
 * code, detail, now, campaign ID. The request was refused, so the duplicate guard forgets it.
 * The claimed row goes back to queued, parked for resume (a new job number, the front of the
 * backlog); the campaign pauses with the code as its reason (the first halt's reason stays).
 * On a cancelled campaign the row is cancelled (and, if it was the last open row, the
 * campaign completes). Either way the job's work ends: its ID leaves the window.
 */
export const HALT = `
${COMPLETE_IF_DONE}
${MOVE}
${BACKLOG}
${PARK}
${PAUSE_IF_RUNNING}
${FORGET_SEND}
local campaignKey, rowsKey, sentKey, sentAtKey, windowKey, activeKey, pendingKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7]
local row, owner, code, detail, now, campaignId = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6]
redis.call('ZREM', windowKey, jobIdOf(campaignId, row, owner))
local json = redis.call('HGET', rowsKey, row)
if not json then return {'missing', 0} end
local rec = cjson.decode(json)
if rec.s ~= 'sending' or (rec.k or 0) ~= tonumber(owner) then return {rec.s, 0} end
forgetSend(sentKey, sentAtKey, rec.f, campaignId, row)
rec.c = code; rec.d = detail
if redis.call('HGET', campaignKey, 'cancelled') == '1' then
  move(campaignKey, rec, 'cancelled')
  redis.call('HSET', rowsKey, row, cjson.encode(rec))
  return {'cancelled', completeIfDone(campaignKey, now)}
end
move(campaignKey, rec, 'queued')
park(campaignKey, rowsKey, pendingKey, activeKey, campaignId, row, rec)
return {'queued', 0, pauseIfRunning(campaignKey, code .. ': ' .. detail, now)}`;

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
 * KEYS: campaign, pending, active. ARGV: campaign ID, now, reason ('' = by the operator).
 * Returns {outcome, rows cancelled}.
 * The rows still in the backlog are cancelled as a block: their counts move to `cancelled`
 * and the backlog goes, so cancel costs the same for ten rows or a million (their records
 * still say queued, which in a cancelled campaign reads as cancelled: RedisLedger.rows).
 * Rows already fed are cancelled by their claim; rows in flight keep their answer. An
 * ingest that was interrupted will not be continued: the rows read are all the campaign
 * has, so it can complete once they are answered.
 */
export const CANCEL = `
${COMPLETE_IF_DONE}
${END_BACKLOG}
local campaignKey, pendingKey, activeKey = KEYS[1], KEYS[2], KEYS[3]
local f = redis.call('HMGET', campaignKey, 'definition', 'finishedAt', 'cancelled', 'ingestInterrupted')
if not f[1] then return {'missing', 0} end
if f[2] and f[3] ~= '1' then return {'completed', 0} end
redis.call('HSET', campaignKey, 'cancelled', '1')
redis.call('HDEL', campaignKey, 'paused', 'pausedReason', 'pausedAt')
if f[4] then
  redis.call('HSET', campaignKey, 'ingestDone', '1')
  redis.call('HDEL', campaignKey, 'ingestInterrupted')
end
if ARGV[3] and ARGV[3] ~= '' then redis.call('HSET', campaignKey, 'cancelReason', ARGV[3]) end
local unfed = endBacklog(campaignKey, pendingKey, 'cancelled')
redis.call('ZREM', activeKey, ARGV[1])
completeIfDone(campaignKey, ARGV[2])
return {'cancelled', unfed}`;

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
 * KEYS: campaign, rows, pending, active. ARGV: first row, last row, codes (comma-joined,
 * '' = any), failed ('1'), unknown ('1'), campaign ID.
 * Chosen rows go back to queued under a new job number, at the end of the backlog; the
 * campaign is no longer finished. Returns {requeued, rows without their values (written by
 * a version that kept them only in the job)}.
 */
export const MARK_FOR_RETRY = `
${MOVE}
${BACKLOG}
local campaignKey, rowsKey, pendingKey, activeKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
-- Checked here, not only by the caller: a cancel may land between its check and this page.
if redis.call('HGET', campaignKey, 'cancelled') == '1' then return {0, 0} end
local first, last = tonumber(ARGV[1]), tonumber(ARGV[2])
local codes = {}
for code in string.gmatch(ARGV[3], '[^,]+') do codes[code] = true end
local anyCode = ARGV[3] == ''
local fields = {}
for row = first, last do fields[#fields + 1] = tostring(row) end
local values = redis.call('HMGET', rowsKey, unpack(fields))
local entries = {}
local noPayload = 0
for i, json in ipairs(values) do
  if json then
    local rec = cjson.decode(json)
    local chosen = (rec.s == 'failed' and ARGV[4] == '1' and (anyCode or codes[rec.c or ''])) or (rec.s == 'unknown' and ARGV[5] == '1')
    if chosen then
      if rec.v then
        move(campaignKey, rec, 'queued')
        rec.k = (rec.k or 0) + 1
        redis.call('HSET', rowsKey, fields[i], cjson.encode(rec))
        entries[#entries + 1] = entryOf(fields[i], rec.k)
      else
        noPayload = noPayload + 1
      end
    end
  end
end
if #entries > 0 then
  redis.call('RPUSH', pendingKey, unpack(entries))
  activate(campaignKey, activeKey, ARGV[6])
  redis.call('HDEL', campaignKey, 'finishedAt')
end
return {#entries, noPayload}`;

/**
 * KEYS: active, window (of one phone number). ARGV: key prefix, now (ms), window size, least
 * rows worth a feed, age (ms) after which a job of the window is handed out again, most such
 * jobs per call.
 * The feeder's atomic cursor: pops rows off the backlogs of the number's campaigns into the
 * window, never more than the window has room for, and records each as fed (job ID → now)
 * in the same step, so no row is fed twice or skipped, whatever crashes. Priority classes
 * are strict (a high campaign's rows go first); within a class the room is shared evenly,
 * round-robin, so a small campaign finishes while a big one is still sending. Paused and
 * cancelled campaigns get nothing. A job fed long ago and not done (its enqueue may have
 * been lost in a crash) is handed out again: its ID is fixed, so BullMQ ignores it when it
 * exists. Campaign keys are built here from the prefix (the active set names them).
 * A campaign is fed from its start (`startsAt`) on; one not started by its `startDeadline`
 * is cancelled with that reason; at `expiresAt` its backlog expires as a block.
 * Returns {campaign, row, job number, … for the rows fed, interleaved; job IDs to enqueue
 * again; events: kind ('started' | 'expired' | 'deadline' | 'completed'), campaign, detail
 * (start ms, rows, ''), …}.
 */
export const FEED = `
${COMPLETE_IF_DONE}
${END_BACKLOG}
local activeKey, windowKey = KEYS[1], KEYS[2]
local prefix, now, size, minBatch = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local refreshAge, refreshMost = tonumber(ARGV[5]), tonumber(ARGV[6])
local again = redis.call('ZRANGEBYSCORE', windowKey, '-inf', now - refreshAge, 'LIMIT', 0, refreshMost)
for _, id in ipairs(again) do redis.call('ZADD', windowKey, now, id) end
local room = size - redis.call('ZCARD', windowKey)
local fed, events = {}, {}
if room < minBatch then return { fed, again, events } end
local listed = redis.call('ZRANGE', activeKey, 0, -1, 'WITHSCORES')
local classes, order = {}, {}
for i = 1, #listed, 2 do
  local score = listed[i + 1]
  if not classes[score] then classes[score] = {}; order[#order + 1] = score end
  local class = classes[score]
  class[#class + 1] = listed[i]
end
table.sort(order, function(a, b) return tonumber(a) < tonumber(b) end)
-- Rows of one class interleaved, one of each campaign in turn: the queue runs them in this order.
local function interleave(taken)
  local i = 1
  local more = true
  while more do
    more = false
    for _, c in ipairs(taken) do
      if c.rows[i] then
        fed[#fed + 1] = c.id
        fed[#fed + 1] = c.rows[i]
        fed[#fed + 1] = c.rows[i + 1]
        more = true
      end
    end
    i = i + 2
  end
end
for _, score in ipairs(order) do
  if room <= 0 then break end
  local eligible = {}
  for _, id in ipairs(classes[score]) do
    local campaignKey = prefix .. ':campaign:' .. id
    local pendingKey = campaignKey .. ':pending'
    local f = redis.call('HMGET', campaignKey, 'definition', 'cancelled', 'paused', 'ingestDone', 'startsAt', 'startDeadline', 'expiresAt', 'startedAt')
    if not f[1] or f[2] == '1' then
      redis.call('ZREM', activeKey, id)
    elseif f[7] and now >= tonumber(f[7]) then
      -- Expired: what was not fed never will be.
      redis.call('HSET', campaignKey, 'expired', '1')
      local n = endBacklog(campaignKey, pendingKey, 'expired')
      redis.call('ZREM', activeKey, id)
      if n > 0 then events[#events + 1] = 'expired'; events[#events + 1] = id; events[#events + 1] = tostring(n) end
      if completeIfDone(campaignKey, now) == 1 then events[#events + 1] = 'completed'; events[#events + 1] = id; events[#events + 1] = '' end
    elseif not f[8] and f[6] and now > tonumber(f[6]) then
      -- Not started by its deadline (no worker ran, or it stayed paused): cancelled with that reason.
      local reason = 'START_DEADLINE: not started by ' .. f[6]
      redis.call('HSET', campaignKey, 'cancelled', '1', 'cancelReason', reason)
      redis.call('HDEL', campaignKey, 'paused', 'pausedReason', 'pausedAt')
      local n = endBacklog(campaignKey, pendingKey, 'cancelled')
      redis.call('ZREM', activeKey, id)
      events[#events + 1] = 'deadline'; events[#events + 1] = id; events[#events + 1] = tostring(n)
      if completeIfDone(campaignKey, now) == 1 then events[#events + 1] = 'completed'; events[#events + 1] = id; events[#events + 1] = '' end
    elseif f[5] and now < tonumber(f[5]) then
      -- Scheduled: nothing is fed before its start.
    elseif f[3] ~= '1' then
      if redis.call('LLEN', pendingKey) > 0 then
        eligible[#eligible + 1] = { id = id, key = pendingKey, rows = {}, started = f[8], startsAt = f[5], campaignKey = campaignKey }
      elseif f[4] == '1' then
        -- Nothing left to feed; a park, retry or reopened row puts it back.
        redis.call('ZREM', activeKey, id)
      end
    end
  end
  local taken = {}
  for _, c in ipairs(eligible) do taken[#taken + 1] = c end
  -- Where the round starts moves with the clock, so the room's remainder (room not a
  -- multiple of the campaigns) falls on a different campaign each feed, not always the last.
  local turn = now % math.max(1, #eligible)
  while room > 0 and #eligible > 0 do
    local n = #eligible
    local share, extra = math.floor(room / n), room % n
    local still = {}
    for j = 0, n - 1 do
      local c = eligible[((turn + j) % n) + 1]
      local want = share
      if j < extra then want = want + 1 end
      if want > 0 then
        local got = redis.call('LPOP', c.key, want)
        if got then
          for _, entry in ipairs(got) do
            local row, k = string.match(entry, '^(%d+):?(%d*)$')
            if row then
              if k == '' then k = '0' end
              local jobId = c.id .. '-' .. row
              if k ~= '0' then jobId = jobId .. '-r' .. k end
              redis.call('ZADD', windowKey, now, jobId)
              c.rows[#c.rows + 1] = row
              c.rows[#c.rows + 1] = k
            end
          end
          room = room - #got
          if #got == want then still[#still + 1] = c end
        end
      else
        still[#still + 1] = c
      end
    end
    -- Everyone still eligible got a full share: the room is used up.
    if #still == n then break end
    eligible = still
  end
  for _, c in ipairs(taken) do
    if not c.started and #c.rows > 0 then
      redis.call('HSET', c.campaignKey, 'startedAt', now)
      events[#events + 1] = 'started'; events[#events + 1] = c.id; events[#events + 1] = c.startsAt or ''
    end
  end
  interleave(taken)
end
return { fed, again, events }`;


/**
 * KEYS: campaign. ARGV: new start (ms). Moves the start of a campaign that has not started.
 * Returns 'rescheduled', or why not: 'missing', 'cancelled', 'completed', 'started'.
 */
export const RESCHEDULE = `
local f = redis.call('HMGET', KEYS[1], 'definition', 'cancelled', 'finishedAt', 'startedAt')
if not f[1] then return 'missing' end
if f[2] == '1' then return 'cancelled' end
if f[3] then return 'completed' end
if f[4] then return 'started' end
redis.call('HSET', KEYS[1], 'startsAt', ARGV[1])
return 'rescheduled'`;
