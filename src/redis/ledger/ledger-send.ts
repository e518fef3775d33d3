import type { RowStatus } from '../../campaigns/campaign.js';
import type { ClaimedRow, ClaimResult, InDoubtDecisions, SendLedger, Settlement, SettleResult } from '../../campaigns/ledger.js';
import type { SendJob } from '../../campaigns/send-job.js';
import { numberScope } from '../key-scope.js';
import type { LedgerContext } from './ledger-context.js';
import { CLAIM_ANSWER_WIDTH, SETTLE_ROW_ARGS, ledgerScriptOnConnection } from './ledger-scripts.js';
import { claimKeys, confirmInDoubtKeys, retryCappedKeys, rowSendKeys, settleKeys } from './script-keys.js';
import { TickBatch } from './tick-batch.js';
import { wamidKeepArgs } from './wamid-compact.js';
import { connectionKeptChangingError } from '../../errors/redis-errors.js';

/** How many times a claim is sent again because its connection changed under it before it fails (its job is tried again). */
const CLAIM_RECONNECTS = 5;

/** How long answers gather: the request is out; only the row's answer, and its job's end, wait. */
const SETTLE_GATHER_MS = 5;

/** A claim's answer as the script gives it: outcome, status or attempts, then phone, values JSON, header link. */
type RawClaim = string[];
/** A settle's answer as the script gives it: status afterwards, completed (1/0), paused (1/0). */
type RawSettle = [string, number, number];
interface PendingSettle {
  job: SendJob;
  settlement: Settlement;
  /** Whose duplicate guard forgets a refused send ('' = the campaign's, read from its definition). */
  phoneNumberId: string;
}
interface PendingClaim {
  job: SendJob;
  phoneNumberId: string;
}

/**
 * Sending: each job's claim and answer, one script call per campaign for those of one
 * event-loop turn (claim.lua, settle.lua); halts (halt.lua); the in-doubt rule
 * (confirm-in-doubt.lua); whether a campaign's sends may start.
 */
export class LedgerSend implements Pick<SendLedger, 'claim' | 'settle' | 'halt' | 'isHeld' | 'confirmInDoubt' | 'retryCapped'> {
  // Claims gather for one turn of the event loop: a claim holds a request place (SEND_CONCURRENCY) while it
  // waits, and an unpaced worker drained 20% faster without the 2 ms they gathered for. Paced rows
  // wake before their slots several at once (the pacer's wake grid), so their claims still share a call.
  // Answers gather for a few ms: they reach the ledger one by one, ms apart, after their places are given
  // back, and a call each cost the worker a Redis round trip a row.
  readonly #claims = new TickBatch<PendingClaim, RawClaim>((id, items) => this.#claimMany(id, items));
  readonly #settles = new TickBatch<PendingSettle, RawSettle>((id, items) => this.#settleMany(id, items), { gatherMs: SETTLE_GATHER_MS });

  constructor(private readonly context: LedgerContext) {}

  async claim(job: SendJob, phoneNumberId?: string): Promise<ClaimResult> {
    const id = job.campaignId;
    const number = await this.context.numberOf(id, phoneNumberId);
    const [outcome, value, phone, values, headerLink] = await this.#claims.add(id, { job, phoneNumberId: number });
    switch (outcome) {
      case 'claimed':
        return { outcome: 'claimed', attempt: Number(value), row: claimedRow(phone ?? '', values ?? '', headerLink ?? '') };
      case 'settled':
        return phone === '1'
          ? { outcome: 'settled', status: value as RowStatus, completedCampaign: true }
          : { outcome: 'settled', status: value as RowStatus };
      case 'in-doubt':
        return { outcome: 'in-doubt', attempts: Number(value) };
      case 'parked':
        return { outcome: 'parked' };
      case 'stale':
        return { outcome: 'stale' };
      default:
        throw new Error(`ledger has no row ${job.row} in campaign ${id}`);
    }
  }

  async #claimMany(id: string, items: readonly PendingClaim[]): Promise<RawClaim[]> {
    const { redis, prefix, clock } = this.context;
    // One campaign per call, so one phone number.
    const phoneNumberId = items[0]?.phoneNumberId ?? '';
    const keys = claimKeys(prefix, phoneNumberId, id);
    const [campaignKey] = keys;
    const rows = items.flatMap(({ job }) => [job.row, job.requeue ?? 0, job.inGroup ?? '']);
    const answers = (flat: string[]): RawClaim[] =>
      items.map((_, i) => {
        const answer = flat.slice(CLAIM_ANSWER_WIDTH * i, CLAIM_ANSWER_WIDTH * (i + 1));
        if (answer.length === 0) answer.push('missing');
        return answer;
      });
    if (!this.context.waitsForReplicas)
      return answers(await redis.cwClaim(...keys, clock.arg(), this.context.duplicateWindowMs, id, ...rows));
    for (let attempt = 1; ; attempt++) {
      const { flat, connection } = await this.#claimOnce([...keys, clock.arg(), this.context.duplicateWindowMs, id, ...rows]);
      // A claimed row's send must not leave before its claim is on the replicas (a failover
      // that lost it would let the row be claimed and sent again). A wait that ran on another
      // connection (a failover came between the claim and the wait) cannot say whether the
      // node now holding the rows kept the claim: they are claimed again there, where a claim
      // it kept answers in-doubt (never sent on this answer) and one it lost is made again.
      if (await this.context.replicated(campaignKey, connection)) return answers(flat);
      if (attempt >= CLAIM_RECONNECTS) throw connectionKeptChangingError(`the claims of campaign ${id}`, attempt);
    }
  }

  /** The claim script, with the CLIENT ID of the connection it ran on. */
  async #claimOnce(args: readonly (string | number)[]): Promise<{ flat: string[]; connection: number }> {
    const { reply, connection } = await ledgerScriptOnConnection<string[]>(this.context.redis, 'cwClaim', args);
    return { flat: reply, connection };
  }

  async settle(job: SendJob, settlement: Settlement, phoneNumberId = ''): Promise<SettleResult> {
    const [status, completed, paused] = await this.#settles.add(job.campaignId, { job, settlement, phoneNumberId });
    if (status === 'missing') throw new Error(`ledger has no row ${job.row} in campaign ${job.campaignId}`);
    return { status: status as RowStatus, completedCampaign: completed === 1, pausedCampaign: paused === 1 };
  }

  async #settleMany(id: string, items: readonly PendingSettle[]): Promise<RawSettle[]> {
    const { redis, prefix, clock, brake } = this.context;
    const { confirmWindowMs, heldPatienceMs } = this.context;
    const answers: (string | number)[] = [];
    for (const { job, settlement } of items) {
      const sent = settlement.status === 'sent' || settlement.status === 'held';
      const wamid = sent ? settlement.wamid : '';
      answers.push(
        job.row,
        settlement.status,
        wamid,
        sent ? '' : settlement.errorCode,
        sent ? '' : settlement.errorDetail,
        job.requeue ?? 0,
        ...wamidKeepArgs(wamid),
      );
    }
    if (answers.length !== SETTLE_ROW_ARGS * items.length) throw new Error('settle arguments out of step with the script');
    const { phoneNumberId } = await this.context.keys(id, items[0]?.phoneNumberId);
    const flat = await redis.cwSettle(
      ...settleKeys(prefix, phoneNumberId, id),
      id,
      clock.arg(),
      brake.window,
      brake.failureShare,
      confirmWindowMs,
      heldPatienceMs,
      ...answers,
    );
    return items.map((_, i) => [String(flat[3 * i] ?? 'missing'), Number(flat[3 * i + 1] ?? 0), Number(flat[3 * i + 2] ?? 0)]);
  }

  async retryCapped(phoneNumberId: string, limit: number): Promise<{ requeued: number; left: number }> {
    const { redis, prefix, clock } = this.context;
    const [requeued, left] = await redis.cwRetryCapped(
      ...retryCappedKeys(prefix, phoneNumberId),
      numberScope(prefix, phoneNumberId),
      clock.arg(),
      limit,
    );
    return { requeued: Number(requeued ?? 0), left: Number(left ?? 0) };
  }

  async confirmInDoubt(phoneNumberId: string, limit: number): Promise<InDoubtDecisions> {
    const { redis, prefix, clock } = this.context;
    const [resent, unknown, ended, heldExpired, ...completed] = await redis.cwConfirmInDoubt(
      ...confirmInDoubtKeys(prefix, phoneNumberId),
      numberScope(prefix, phoneNumberId),
      clock.arg(),
      limit,
    );
    return {
      resent: Number(resent),
      unknown: Number(unknown),
      ended: Number(ended),
      heldExpired: Number(heldExpired),
      completedCampaigns: completed.map(String),
    };
  }

  async halt(
    job: SendJob,
    errorCode: string,
    errorDetail: string,
    phoneNumberId?: string,
    templateHeld = false,
  ): Promise<{ completedCampaign: boolean; pausedCampaign: boolean }> {
    const { redis, prefix, clock } = this.context;
    const id = job.campaignId;
    const keys = await this.context.keys(id, phoneNumberId);
    const [, completed, paused] = await redis.cwHalt(
      ...rowSendKeys(prefix, keys.phoneNumberId, id),
      job.row,
      job.requeue ?? 0,
      errorCode,
      errorDetail,
      clock.arg(),
      id,
      templateHeld ? '1' : '0',
    );
    return { completedCampaign: completed === 1, pausedCampaign: paused === 1 };
  }

  async isHeld(campaignId: string): Promise<boolean> {
    const [paused, cancelled] = await this.context.redis.hmget((await this.context.keys(campaignId)).campaign, 'paused', 'cancelled');
    return paused === '1' || cancelled === '1';
  }
}

/** The claim script's answer for a claimed row: phone, values JSON ('' = none stored), header link ('' = none). */
function claimedRow(phone: string, valuesJson: string, headerLink: string): ClaimedRow {
  let values: string[] | undefined;
  if (valuesJson !== '') {
    const parsed = JSON.parse(valuesJson) as unknown;
    // cjson writes an empty list as {}.
    values = Array.isArray(parsed) ? parsed.map(String) : [];
  }
  return { to: phone, values, headerLink: headerLink === '' ? undefined : headerLink };
}
