import type { Redis } from 'ioredis';
import type { SweepProgress } from '../campaigns/campaign-controls.js';
import { FINAL, PARK } from '../redis/ledger-scripts.js';

export interface SweepKeys {
  /** The ledger's campaign hash, rows hash and requeue hash. */
  campaign: string;
  rows: string;
  requeue: string;
  /** BullMQ's wait list and delayed set of the phone number's queue, and the prefix of its job keys. */
  wait: string;
  delayed: string;
  jobKeyPrefix: string;
}

/** Entries per script call: one call stays well under a millisecond of Redis time per 1,000. */
const WINDOW = 1000;
/** Never a BullMQ job ID (those of this project have no `<`), so it marks entries to drop. */
const TOMBSTONE = '<campaign-worker:swept>';

/**
 * KEYS: campaign, rows, requeue, state (BullMQ's wait list or delayed set).
 * ARGV: job key prefix, campaign ID, first index, count, 'wait' | 'delayed'.
 * Looks at one window of the state and takes out the campaign's jobs that have nothing left
 * to do: a job whose row has its answer or a newer owner (it would only find itself stale),
 * and, while the campaign is paused, a job that owns its queued row (parked first, with its
 * payload, exactly as a worker's claim would park it: the row gets owner k+1 and the job is
 * set aside for resume). Parking and removal happen in this one script, so a crash leaves
 * every job either in the queue or set aside, never lost.
 * Removal from the wait list marks entries and drops them with one LREM, instead of BullMQ's
 * remove (an LREM per job, over the whole list: quadratic on a million-job queue).
 * Returns {entries looked at, set aside, removed}.
 * This reads BullMQ's own layout (job hash field `data`; the job keys removed are those its
 * removeJobKeys deletes), which is why bullmq is pinned to an exact version in package.json;
 * test/integration/waiting-sweep.test.ts checks the result through BullMQ's API.
 */
const SWEEP_WINDOW = `
${FINAL}
${PARK}
local campaignKey, rowsKey, requeueKey, stateKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local jobKeyPrefix, campaignId, kind = ARGV[1], ARGV[2], ARGV[5]
local first, count = tonumber(ARGV[3]), tonumber(ARGV[4])
local paused = redis.call('HGET', campaignKey, 'paused') == '1'
local ids
if kind == 'wait' then
  ids = redis.call('LRANGE', stateKey, first, first + count - 1)
else
  ids = redis.call('ZRANGE', stateKey, first, first + count - 1)
end
local idPrefix = campaignId .. '-'
local setAside, removed = 0, 0
for i, id in ipairs(ids) do
  if string.sub(id, 1, #idPrefix) == idPrefix then
    local jobKey = jobKeyPrefix .. id
    local data = redis.call('HGET', jobKey, 'data')
    local ok, job = false, nil
    if data then ok, job = pcall(cjson.decode, data) end
    -- Another campaign's ID may start with this one's and a dash: the job's own data decides.
    if ok and type(job) == 'table' and job.campaignId == campaignId and job.row then
      local row = tostring(job.row)
      local k = tonumber(job.requeue or 0)
      local json = redis.call('HGET', rowsKey, row)
      local take = false
      if json then
        local rec = cjson.decode(json)
        local owner = rec.k or 0
        if FINAL[rec.s] or owner > k then
          take = true
        elseif paused and rec.s == 'queued' and owner == k then
          park(rowsKey, requeueKey, row, rec, data)
          setAside = setAside + 1
          take = true
        end
      end
      if take then
        if kind == 'wait' then
          redis.call('LSET', stateKey, first + i - 1, '${TOMBSTONE}')
        else
          redis.call('ZREM', stateKey, id)
        end
        redis.call('DEL', jobKey, jobKey .. ':logs', jobKey .. ':dependencies', jobKey .. ':processed', jobKey .. ':failed', jobKey .. ':unsuccessful')
        removed = removed + 1
      end
    end
  end
end
if kind == 'wait' and removed > 0 then redis.call('LREM', stateKey, removed, '${TOMBSTONE}') end
return {#ids, setAside, removed}`;

interface SweepCommands {
  cwSweepWindow(campaign: string, rows: string, requeue: string, state: string, ...args: (string | number)[]): Promise<[number, number, number]>;
}

/**
 * Takes a campaign's idle jobs out of its phone number's queue, window by window, over the
 * wait list and then the delayed set. Linear in the queue's length: a million waiting jobs
 * take seconds, not hours. Jobs of other campaigns are only read. Jobs a worker holds
 * (active) are not touched: their claim parks or ignores them.
 * A job pushed while the sweep runs lands at the head of the wait list, before the window:
 * a paused campaign gets none (nothing enqueues for it), and a worker parks any it finds.
 */
export async function sweepCampaignJobs(
  redis: Redis,
  keys: SweepKeys,
  campaignId: string,
  onProgress?: (progress: SweepProgress) => void,
): Promise<SweepProgress> {
  if (!('cwSweepWindow' in redis)) redis.defineCommand('cwSweepWindow', { numberOfKeys: 4, lua: SWEEP_WINDOW });
  const commands = redis as Redis & SweepCommands;
  const [waiting, delayed] = await Promise.all([redis.llen(keys.wait), redis.zcard(keys.delayed)]);
  const progress: SweepProgress = { scanned: 0, total: waiting + delayed, setAside: 0, removed: 0 };
  for (const [kind, state] of [
    ['wait', keys.wait],
    ['delayed', keys.delayed],
  ] as const) {
    let first = 0;
    for (;;) {
      const [looked, setAside, removed] = await commands.cwSweepWindow(keys.campaign, keys.rows, keys.requeue, state, keys.jobKeyPrefix, campaignId, first, WINDOW, kind);
      progress.scanned += looked;
      progress.setAside += setAside;
      progress.removed += removed;
      onProgress?.({ ...progress });
      if (looked < WINDOW) break;
      // The removed entries are gone from this window: the next one starts that much earlier.
      first += looked - removed;
    }
  }
  return progress;
}
