import type { PurgeLedger, PurgeResult } from '../../campaigns/control/purge-ledger.js';
import type {
  CancelResult,
  ControlLedger,
  PauseResult,
  RescheduleResult,
  ResumeResult,
  RetryPage,
  RetrySelection,
} from '../../campaigns/ledger.js';
import { MARKETING_CAP_WAIT_MS } from '../../campaigns/marketing-cap-wait.js';
import { AppError } from '../../errors/app-error.js';
import type { LedgerContext } from './ledger-context.js';
import { feedKeys, laneBacklogKey, optOutsKey, retentionLockKey, wamidsKey } from './ledger-keys.js';
import { storedWamid, type StoredRow } from './stored-row.js';
import { campaignNotFound } from '../../campaigns/campaign-not-found.js';

/** How long the retention lock lasts when its holder dies before releasing it. */
const RETENTION_LOCK_MS = 10 * 60_000;

/** Rows read per step: each step is one short HSCAN and one short script, so Redis never stalls on a 1M-row campaign. */
const PAGE = 500;

/**
 * The operator's commands, each one script (pause, resume, cancel, reschedule, mark-for-retry),
 * and purge: a finished campaign's rows, backlog, brake bits, history, timeline and message-ID index entries
 * (forget-wamids.lua) go; its hash stays, with `purgedAt`. Crash-safe by its order: rows are
 * read for their wamids first, deleted last, and `purgedAt` written after.
 */
export class LedgerControls implements Omit<ControlLedger, 'status' | 'isHeld' | 'getCampaign'>, PurgeLedger {
  constructor(private readonly context: LedgerContext) {}

  async pause(campaignId: string, reason: string): Promise<PauseResult> {
    const outcome = await this.context.redis.cwPause((await this.context.keys(campaignId)).campaign, reason, this.context.clock.arg());
    return { outcome } as PauseResult;
  }

  async resume(campaignId: string): Promise<ResumeResult> {
    const keys = await this.context.keys(campaignId);
    const outcome = await this.context.redis.cwResume(keys.campaign, keys.recent);
    return { outcome } as ResumeResult;
  }

  async cancel(campaignId: string): Promise<CancelResult> {
    const { redis, prefix, clock } = this.context;
    const keys = await this.context.keys(campaignId);
    const [outcome, cancelled] = await redis.cwCancel(
      keys.campaign,
      keys.pending,
      feedKeys(prefix, keys.phoneNumberId).active,
      campaignId,
      clock.arg(),
      '',
    );
    return outcome === 'cancelled' ? { outcome, cancelled: Number(cancelled) } : ({ outcome } as CancelResult);
  }

  async reschedule(campaignId: string, startsAt: number): Promise<RescheduleResult> {
    return {
      outcome: (await this.context.redis.cwReschedule(
        (await this.context.keys(campaignId)).campaign,
        startsAt,
      )) as RescheduleResult['outcome'],
    };
  }

  async markForRetry(campaignId: string, fromRow: number, toRow: number, selection: RetrySelection): Promise<RetryPage> {
    // An empty range: nothing to look at (the script's HMGET would get no fields).
    if (fromRow > toRow) return { requeued: 0, noPayload: 0, held: 0, heldUntil: 0, usMarketing: 0, optedOut: 0, experiment: 0 };
    const { redis, prefix, clock } = this.context;
    const keys = await this.context.keys(campaignId);
    // The script cannot run libphonenumber-js: it gets the US area codes the library knows
    // (loaded only here: every other command of the ledger starts without it).
    const usCodes = selection.keepUsMarketingFailed === true ? (await import('../../phone/us-numbers.js')).usAreaCodes().join(',') : '';
    const [requeued, noPayload, held, heldUntil, usMarketing, optedOut, experiment] = await redis.cwMarkForRetry(
      keys.campaign,
      keys.rows,
      keys.pending,
      feedKeys(prefix, keys.phoneNumberId).active,
      optOutsKey(prefix, keys.phoneNumberId),
      fromRow,
      toRow,
      selection.codes.join(','),
      selection.failed ? '1' : '0',
      selection.unknown ? '1' : '0',
      campaignId,
      clock.arg(),
      MARKETING_CAP_WAIT_MS,
      usCodes,
    );
    return {
      requeued,
      noPayload,
      held: Number(held ?? 0),
      heldUntil: Number(heldUntil ?? 0),
      usMarketing: Number(usMarketing ?? 0),
      optedOut: Number(optedOut ?? 0),
      experiment: Number(experiment ?? 0),
    };
  }

  async purge(campaignId: string): Promise<PurgeResult> {
    const { redis, prefix } = this.context;
    const keys = await this.context.keys(campaignId);
    const fields = await redis.hmget(keys.campaign, 'definition', 'finishedAt', 'purgedAt', 'cancelled', 'paused', 'ingestDone');
    const [definition, finishedAt, purgedAt, cancelled, paused, ingestDone] = fields.map((value) => value ?? null);
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
    const rows = await redis.hlen(keys.rows);
    if (purgedAt !== null && purgedAt !== undefined && rows === 0)
      return { rows: 0, wamids: 0, purgedAt: Number(purgedAt), alreadyPurged: true, phoneNumberId };

    let wamids = 0;
    let cursor = '0';
    do {
      const [next, flat] = await redis.hscan(keys.rows, cursor, 'COUNT', PAGE);
      cursor = next;
      const pairs: string[] = [];
      for (let i = 0; i < flat.length; i += 2) {
        const wamid = storedWamid(JSON.parse(flat[i + 1] ?? '{}') as StoredRow);
        if (wamid !== undefined) pairs.push(wamid, flat[i] ?? '');
      }
      if (pairs.length > 0) wamids += await redis.cwForgetWamids(wamidsKey(prefix, keys.phoneNumberId), campaignId, ...pairs);
    } while (cursor !== '0');

    // UNLINK frees a large hash in the background instead of blocking Redis. (`requeue` and
    // `payloads` held jobs with values in versions before the feeder.)
    // A send window's lanes (their lists are empty by now: the campaign finished).
    const laneLists = Array.from({ length: await redis.hlen(keys.lanes) }, (_, lane) => laneBacklogKey(keys.pending, lane));
    await redis.unlink(
      keys.rows,
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
