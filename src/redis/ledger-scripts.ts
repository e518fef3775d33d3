/**
 * Lua for the campaign ledger. Each state change and its counters move in one script, so a
 * crash or a duplicate job can never leave the counters out of step with the rows.
 * Row records are JSON: {p: phone, s: status, a: attempts, w: wamid, c: error code, d: detail}.
 */

const FINAL = `local FINAL = { sent = true, failed = true, rejected = true, skipped = true, unknown = true }`;

// A campaign is complete when ingest is done and every row has a final status.
const COMPLETE_IF_DONE = `
local function completeIfDone(campaignKey, now)
  local f = redis.call('HMGET', campaignKey, 'ingestDone', 'total', 'n:sent', 'n:failed', 'n:rejected', 'n:skipped', 'n:unknown', 'finishedAt')
  if f[1] ~= '1' or f[8] then return 0 end
  local answered = 0
  for i = 3, 7 do answered = answered + tonumber(f[i] or '0') end
  if answered >= tonumber(f[2] or '0') then
    redis.call('HSET', campaignKey, 'finishedAt', now)
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

/** KEYS: campaign, rows. ARGV: row. Returns {outcome, status-or-attempts}. */
export const CLAIM = `
${FINAL}
local json = redis.call('HGET', KEYS[2], ARGV[1])
if not json then return {'missing', ''} end
local rec = cjson.decode(json)
if FINAL[rec.s] then return {'settled', rec.s} end
if rec.s == 'sending' then return {'in-doubt', tostring(rec.a or 0)} end
rec.a = (rec.a or 0) + 1
redis.call('HINCRBY', KEYS[1], 'n:' .. rec.s, -1)
rec.s = 'sending'
redis.call('HINCRBY', KEYS[1], 'n:sending', 1)
redis.call('HSET', KEYS[2], ARGV[1], cjson.encode(rec))
return {'claimed', tostring(rec.a)}`;

/**
 * KEYS: campaign, rows, wamid index. ARGV: row, status, wamid, code, detail, campaignId, now.
 * First final answer wins. Returns {status afterwards, 1 if this call completed the campaign}.
 */
export const SETTLE = `
${FINAL}
${COMPLETE_IF_DONE}
local json = redis.call('HGET', KEYS[2], ARGV[1])
if not json then return {'missing', 0} end
local rec = cjson.decode(json)
if FINAL[rec.s] then return {rec.s, 0} end
local status = ARGV[2]
if status == 'abandoned' then
  if rec.s == 'sending' then status = 'unknown' else status = 'failed' end
end
redis.call('HINCRBY', KEYS[1], 'n:' .. rec.s, -1)
redis.call('HINCRBY', KEYS[1], 'n:' .. status, 1)
rec.s = status
if ARGV[3] ~= '' then rec.w = ARGV[3] end
if ARGV[4] ~= '' then rec.c = ARGV[4]; rec.d = ARGV[5] elseif status == 'sent' then rec.c = nil; rec.d = nil end
redis.call('HSET', KEYS[2], ARGV[1], cjson.encode(rec))
if status == 'sent' then redis.call('HSET', KEYS[3], ARGV[3], ARGV[6] .. '/' .. ARGV[1]) end
local completed = 0
if FINAL[status] then completed = completeIfDone(KEYS[1], ARGV[7]) end
return {status, completed}`;
