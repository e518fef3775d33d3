import type { PurgeLedger, PurgeResult } from '../../campaigns/control/purge-ledger.js';
import { campaignNotFound } from '../../campaigns/campaign-not-found.js';
import { AppError } from '../../errors/app-error.js';
import type { LedgerContext } from './ledger-context.js';
import { laneBacklogKey, retentionLockKey, wamidsKey } from './ledger-keys.js';
import { decodeStoredRow } from './row-codec.js';
import { rowChunkKeys, storedRowRange } from './row-chunks.js';
import { storedWamid } from './stored-row.js';

/** How long the retention lock lasts when its holder dies before releasing it. */
const RETENTION_LOCK_MS = 10 * 60_000;

/** Rows read per step: each step is a few short LRANGEs and one short script, so Redis never stalls on a 1M-row campaign. */
const PAGE = 500;

/**
 * Deleting a finished campaign's personal data (`campaign purge`, RETENTION_DAYS): its rows,
 * backlog, brake bits, history, timeline and message-ID index entries (forget-wamids.lua) go;
 * its hash stays, with `purgedAt`. Crash-safe by its order: rows are read for their wamids
 * first, deleted last, and `purgedAt` written after. One worker at a time purges (the lock).
 */
export class LedgerPurge implements PurgeLedger {
  constructor(private readonly context: LedgerContext) {}

  async purge(campaignId: string): Promise<PurgeResult> {
    const { redis, prefix } = this.context;
    const keys = await this.context.keys(campaignId);
    const fields = await redis.hmget(keys.campaign, 'definition', 'finishedAt', 'purgedAt', 'cancelled', 'paused', 'ingestDone', 'total');
    const [definition, finishedAt, purgedAt, cancelled, paused, ingestDone, totalField] = fields.map((value) => value ?? null);
    if (definition === null || definition === undefined) throw campaignNotFound(campaignId);
    const phoneNumberId = (JSON.parse(definition) as { phoneNumberId?: string }).phoneNumberId ?? '';
    if (finishedAt === null || finishedAt === undefined) {
      const state =
        cancelled === '1'
          ? 'cancelled with sends still in flight'
          : paused === '1'
            ? 'paused'
            : ingestDone === '1'
              ? 'running'
              : 'still reading its file';
      throw new AppError(
        'CAMPAIGN_STATE_CONFLICT',
        `Cannot purge campaign ${campaignId}: it is ${state}. Purge deletes a finished campaign's personal data; ` +
          `cancel it first with \`campaign cancel ${campaignId}\`, or wait until it completes.`,
      );
    }
    const total = Number(totalField ?? 0);
    const chunks = rowChunkKeys(keys.rows, total);
    const stored = (await redis.exists(keys.rows, ...chunks)) > 0;
    if (purgedAt !== null && purgedAt !== undefined && !stored)
      return { rows: 0, wamids: 0, purgedAt: Number(purgedAt), alreadyPurged: true, phoneNumberId };

    let rows = 0;
    let wamids = 0;
    for (let start = 1; start <= total; start += PAGE) {
      const page = await storedRowRange(redis, keys.rows, start, Math.min(start + PAGE - 1, total));
      const pairs: string[] = [];
      page.forEach((raw, i) => {
        if (raw === null) return;
        rows++;
        const row = decodeStoredRow(raw);
        const wamid = row === undefined ? undefined : storedWamid(row);
        if (wamid !== undefined) pairs.push(wamid, String(start + i));
      });
      if (pairs.length > 0) wamids += await redis.cwForgetWamids(wamidsKey(prefix, keys.phoneNumberId), campaignId, ...pairs);
    }

    // UNLINK frees large keys in the background instead of blocking Redis. (`requeue` and
    // `payloads` held jobs with values in versions before the feeder.)
    // A send window's lanes (their lists are empty by now: the campaign finished).
    const laneLists = Array.from({ length: await redis.hlen(keys.lanes) }, (_, lane) => laneBacklogKey(keys.pending, lane));
    await redis.unlink(
      keys.rows,
      ...chunks,
      keys.pending,
      keys.lanes,
      ...laneLists,
      `${keys.campaign}:requeue`,
      `${keys.campaign}:payloads`,
      keys.recent,
      // Who created and controlled it: names of tokens and people, gone with the rest.
      keys.history,
      keys.timeline,
    );
    const now = await this.context.clock.now();
    await redis.hset(keys.campaign, 'purgedAt', String(now));
    return { rows, wamids, purgedAt: now, alreadyPurged: false, phoneNumberId };
  }

  async lockRetention(): Promise<(() => Promise<void>) | undefined> {
    const { redis, prefix } = this.context;
    const lock = retentionLockKey(prefix);
    if ((await redis.set(lock, String(process.pid), 'PX', RETENTION_LOCK_MS, 'NX')) !== 'OK') return undefined;
    return async () => {
      await redis.del(lock);
    };
  }
}
