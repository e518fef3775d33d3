import type { PurgeLedger, PurgeResult } from '../campaigns/control/purge-ledger.js';
import { AppError } from '../errors/app-error.js';
import type { LedgerContext } from './ledger-context.js';
import { laneBacklogKey, retentionLockKey, wamidsKey } from './ledger-keys.js';
import type { StoredRow } from './stored-row.js';

/** How long the retention lock lasts when its holder dies before releasing it. */
const RETENTION_LOCK_MS = 10 * 60_000;

/** Rows read per step: each step is one short HSCAN and one short script, so Redis never stalls on a 1M-row campaign. */
const PAGE = 500;

/**
 * Deletes a finished campaign's personal data from the ledger: its rows (phone numbers,
 * values, details), the jobs kept for retry and resume, the brake's bits, and its entries in
 * the message-ID index (forget-wamids.lua). The campaign hash (definition, counts, state)
 * stays, with `purgedAt` on the ledger's clock. Crash-safe by its order: the rows are read for
 * their wamids first and deleted last, and `purgedAt` is written only after, so an
 * interrupted purge run again finds what it still has to do.
 */
export class LedgerPurge implements PurgeLedger {
  constructor(private readonly context: LedgerContext) {}

  async purge(campaignId: string): Promise<PurgeResult> {
    const { redis, prefix } = this.context;
    const keys = await this.context.keys(campaignId);
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
        const wamid = (JSON.parse(flat[i + 1] ?? '{}') as Partial<StoredRow>).w;
        if (wamid !== undefined) pairs.push(wamid, flat[i] ?? '');
      }
      if (pairs.length > 0) wamids += await redis.cwForgetWamids(wamidsKey(prefix, keys.phoneNumberId), campaignId, ...pairs);
    } while (cursor !== '0');

    // UNLINK frees a large hash in the background instead of blocking Redis. (`requeue` and
    // `payloads` held jobs with values in versions before the feeder.)
    // A send window's lanes (their lists are empty by now: the campaign finished).
    const laneLists = Array.from({ length: await redis.hlen(keys.lanes) }, (_, lane) => laneBacklogKey(keys.pending, lane));
    await redis.unlink(keys.rows, keys.pending, keys.lanes, ...laneLists, `${keys.campaign}:requeue`, `${keys.campaign}:payloads`, keys.recent);
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
