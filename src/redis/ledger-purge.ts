import { AppError } from '../errors/app-error.js';
import { campaignKeysById, laneBacklogKey, wamidsKey } from './ledger-keys.js';
import type { RedisClient } from './key-scope.js';
import { loadLuaScript } from './lua-scripts.js';

/** Rows read per step: each step is one short HSCAN and one short script, so Redis never stalls on a 1M-row campaign. */
const PAGE = 500;

/** forget-wamids.lua: removes the message-ID index entries that still point at this campaign's rows. */
const FORGET_WAMIDS = loadLuaScript('forget-wamids');

export interface LedgerPurge {
  /** Rows whose personal data was deleted now (0 when it was purged before). */
  rows: number;
  /** Message-ID index entries removed. */
  wamids: number;
  purgedAt: number;
  /** True when an earlier purge had already finished. */
  alreadyPurged: boolean;
  phoneNumberId: string;
}

interface PurgeCommands {
  cwForgetWamids(wamids: string, ...args: (string | number)[]): Promise<number>;
}

/**
 * Deletes a finished campaign's personal data from the ledger: its rows (phone numbers,
 * values, details), the jobs kept for retry and resume, the brake's bits, and its entries in
 * the message-ID index. The campaign hash (definition, counts, state) stays, with `purgedAt`.
 * Crash-safe by its order: the rows are read for their wamids first and deleted last, and
 * `purgedAt` is written only after, so an interrupted purge run again finds what it still has to do.
 */
export async function purgeLedger(redis: RedisClient, prefix: string, campaignId: string, now = Date.now()): Promise<LedgerPurge> {
  if (!('cwForgetWamids' in redis)) redis.defineCommand('cwForgetWamids', { numberOfKeys: 1, lua: FORGET_WAMIDS });
  const commands = redis as RedisClient & PurgeCommands;
  const keys = await campaignKeysById(redis, prefix, campaignId);
  const fields = await redis.hmget(keys.campaign, 'definition', 'finishedAt', 'purgedAt', 'cancelled', 'paused', 'ingestDone');
  const [definition, finishedAt, purgedAt, cancelled, paused, ingestDone] = fields.map((value) => value ?? null);
  if (definition === null || definition === undefined) throw new AppError('CAMPAIGN_NOT_FOUND', `No campaign ${campaignId} under this QUEUE_PREFIX (see \`campaign list\`)`);
  const phoneNumberId = (JSON.parse(definition) as { phoneNumberId?: string }).phoneNumberId ?? '';
  if (finishedAt === null || finishedAt === undefined) {
    const state = cancelled === '1' ? 'cancelled with sends still in flight' : paused === '1' ? 'paused' : ingestDone === '1' ? 'running' : 'still reading its file';
    throw new AppError(
      'CAMPAIGN_STATE_CONFLICT',
      `Cannot purge campaign ${campaignId}: it is ${state}. Purge deletes a finished campaign's personal data; ` +
        `cancel it first with \`campaign cancel ${campaignId}\`, or wait until it completes.`,
    );
  }
  const rows = await redis.hlen(keys.rows);
  if (purgedAt !== null && purgedAt !== undefined && rows === 0) return { rows: 0, wamids: 0, purgedAt: Number(purgedAt), alreadyPurged: true, phoneNumberId };

  let wamids = 0;
  let cursor = '0';
  do {
    const [next, flat] = await redis.hscan(keys.rows, cursor, 'COUNT', PAGE);
    cursor = next;
    const pairs: string[] = [];
    for (let i = 0; i < flat.length; i += 2) {
      const wamid = (JSON.parse(flat[i + 1] ?? '{}') as { w?: string }).w;
      if (wamid !== undefined) pairs.push(wamid, flat[i] ?? '');
    }
    if (pairs.length > 0) wamids += await commands.cwForgetWamids(wamidsKey(prefix, keys.phoneNumberId), campaignId, ...pairs);
  } while (cursor !== '0');

  // UNLINK frees a large hash in the background instead of blocking Redis. (`requeue` and
  // `payloads` are where builds before 0.1.0 keep jobs with values: purged too.)
  // A send window's lanes (their lists are empty by now: the campaign finished).
  const laneLists = Array.from({ length: await redis.hlen(keys.lanes) }, (_, lane) => laneBacklogKey(keys.pending, lane));
  await redis.unlink(keys.rows, keys.pending, keys.lanes, ...laneLists, `${keys.campaign}:requeue`, `${keys.campaign}:payloads`, keys.recent);
  await redis.hset(keys.campaign, 'purgedAt', String(now));
  return { rows, wamids, purgedAt: now, alreadyPurged: false, phoneNumberId };
}
