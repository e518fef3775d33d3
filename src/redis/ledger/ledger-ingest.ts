import { randomBytes } from 'node:crypto';
import type { CampaignDefinition } from '../../campaigns/campaign.js';
import type { AlreadySent, IngestedRow, IngestLedger, IngestResult } from '../../campaigns/ledger.js';
import type { LedgerContext } from './ledger-context.js';
import { lanesOf } from './ledger-context.js';
import { adoptOptOuts } from './ledger-optouts.js';
import { adoptMarketingCaps } from './ledger-marketing-caps.js';
import { campaignIndexKey, campaignNumbersKey, phoneNumbersKey } from './ledger-keys.js';
import { eventsWanted } from '../events/campaign-event-flags.js';
import { brakeKeys, priorSendsKeys, recordIngestedKeys } from './script-keys.js';
import { ledgerScriptOnConnection, type LedgerCommands } from './ledger-scripts.js';
import { onConnection } from '../on-connection.js';
import { connectionKeptChangingError } from '../../errors/redis-errors.js';
import type { ChainableCommander } from 'ioredis';

/** How long a chunk's mark lasts: long enough to be read after a failover cut the chunk's replica wait off. */
const INGEST_MARK_MS = 60_000;
/** How many times a chunk is recorded again, or its mark checked, because the connection changed under it, before it fails. */
const RECORD_RECONNECTS = 5;

type RecordIngestedKeys = ReturnType<typeof recordIngestedKeys>;
type RecordIngestedArgs = [chunk: string, campaignId: string, clock: string, duplicateWindow: number, markMs: number];
/** record-ingested.lua's answer: rows queued, ALREADY_SENT pairs, rows reopened. */
type RawIngest = Awaited<ReturnType<LedgerCommands['cwRecordIngested']>>;

/** How the feed script ranks priorities: lower first. */
export const PRIORITY_SCORE = { high: 0, normal: 1, low: 2 } as const;

/** `{row, detail, row, detail, …}` as the ingest scripts answer → the rows skipped as ALREADY_SENT. */
function pairsOf(flat: readonly string[]): AlreadySent[] {
  const rows: AlreadySent[] = [];
  for (let i = 0; i < flat.length; i += 2) rows.push({ row: Number(flat[i]), detail: flat[i + 1] ?? '' });
  return rows;
}

/** Reading a CSV into a campaign: its definition, its rows in chunks, its lanes, the ends of its ingest. */
export class LedgerIngest implements Omit<
  IngestLedger,
  'getCampaign' | 'status' | 'rows' | 'serviceWindowsOpen' | 'optOuts' | 'marketingCaps'
> {
  constructor(private readonly context: LedgerContext) {}

  async createCampaign(definition: CampaignDefinition): Promise<void> {
    const { redis, prefix } = this.context;
    // The index first: every later read finds the campaign's keys through it. HSETNX: a
    // campaign created again keeps its first number (its keys are there).
    const index = campaignNumbersKey(prefix);
    await this.#writeShared(index, (pipeline) => pipeline.hsetnx(index, definition.id, definition.phoneNumberId));
    const keys = await this.context.keys(definition.id);
    const key = keys.campaign;
    // The feed script reads the schedule from the hash, not from the definition's JSON.
    const schedule: string[] = [];
    for (const field of ['startsAt', 'startDeadline', 'expiresAt'] as const) {
      const value = definition[field];
      if (value !== undefined) schedule.push(field, String(value));
    }
    // `window`: the scripts keep this campaign's backlog in lanes (pending:<lane>).
    if (definition.window !== undefined) schedule.push('window', '1');
    await this.#writeCampaignHash(key, definition, schedule);
    // The shared indexes after the campaign's own hash.
    const campaigns = campaignIndexKey(prefix);
    await this.#writeShared(campaigns, (pipeline) => pipeline.zadd(campaigns, 'NX', definition.createdAt, definition.id));
    const numbers = phoneNumbersKey(prefix);
    await this.#writeShared(numbers, (pipeline) => pipeline.sadd(numbers, keys.phoneNumberId));
    // After the index: a hook added meanwhile either finds the campaign there or is found here.
    if (await eventsWanted(redis, prefix)) await redis.hset(key, 'events', '1');
    // Registered first: an opt-out or a marketing cap from now on reaches this number's copy, which then takes the portfolio's record.
    await adoptOptOuts(this.context, keys.phoneNumberId);
    await adoptMarketingCaps(this.context, keys.phoneNumberId);
  }

  /**
   * The campaign's hash, in one transaction on its own key: its schedule, then its definition,
   * creation time and priority (HSETNX: a campaign created again keeps its first). With
   * REDIS_WAIT_REPLICAS it waits for the replicas itself: a campaign with no rows yet has no
   * chunk whose wait would cover it, and one lost in a failover soon after `send` would read as
   * CAMPAIGN_NOT_FOUND through the indexes that did wait. The CLIENT ID inside the transaction
   * says which connection the wait must run on; after a wait that ran on another one, the hash
   * is written again (the same schedule, the same HSETNX).
   */
  async #writeCampaignHash(key: string, definition: CampaignDefinition, schedule: readonly string[]): Promise<void> {
    const { redis } = this.context;
    await this.#untilReplicated(key, `the campaign's hash ${key}`, async () => {
      const transaction = redis.multi().client('ID');
      if (schedule.length > 0) transaction.hset(key, ...schedule);
      const replies = await transaction
        .hsetnx(key, 'definition', JSON.stringify(definition))
        .hsetnx(key, 'createdAt', String(definition.createdAt))
        .hsetnx(key, 'priority', String(PRIORITY_SCORE[definition.priority ?? 'normal']))
        .exec();
      const failed = replies?.find(([error]) => error !== null)?.[0];
      if (failed) throw failed;
      return Number(replies?.[0]?.[1]);
    });
  }

  /**
   * A write to one of the shared indexes a campaign is found through: the campaign → number entry
   * (missing, the campaign reads as CAMPAIGN_NOT_FOUND), the campaigns' list, and the numbers with
   * campaigns (an opt-out or a marketing cap is spread to each). Their keys have no tag: each lives
   * on whichever master serves its own slot, not the number's, so the waits of the rows' chunks do
   * not cover them. With REDIS_WAIT_REPLICAS each waits there for the replicas in turn: a failover
   * of that master soon after `send` cannot take the entry and leave the rows that survived
   * unreachable. `add` must be idempotent (HSETNX, ZADD NX, SADD): after a wait that ran on
   * another connection it is written again.
   */
  async #writeShared(key: string, add: (pipeline: ChainableCommander) => void): Promise<void> {
    const { redis } = this.context;
    await this.#untilReplicated(key, `a campaign's entry in ${key}`, async () => (await onConnection<unknown>(redis, key, add)).connection);
  }

  /**
   * `write` (idempotent; it answers the CLIENT ID of the connection it ran on) and, with
   * REDIS_WAIT_REPLICAS, the wait for the replicas on `key`'s node; written again after a wait
   * that ran on another connection, REDIS_UNAVAILABLE (naming `what`) after RECORD_RECONNECTS.
   */
  async #untilReplicated(key: string, what: string, write: () => Promise<number>): Promise<void> {
    for (let attempt = 1; attempt <= RECORD_RECONNECTS; attempt++) {
      const connection = await write();
      if (!this.context.waitsForReplicas || (await this.context.replicated(key, connection))) return;
    }
    throw connectionKeptChangingError(what, RECORD_RECONNECTS);
  }

  async recordIngested(campaignId: string, phoneNumberId: string, rows: readonly IngestedRow[]): Promise<IngestResult> {
    if (rows.length === 0) return { queued: [], alreadySent: [], reopened: 0 };
    const { redis, prefix, clock } = this.context;
    const compact = rows.map((r) =>
      r.status === 'queued'
        ? [
            String(r.row),
            r.status,
            r.phone,
            r.message.values,
            r.message.headerLink ?? '',
            r.message.fingerprint,
            ...(r.lane === undefined ? [] : [r.lane]),
          ]
        : [String(r.row), r.status, r.phone, r.errorCode, r.errorDetail],
    );
    const { phoneNumberId: number } = await this.context.keys(campaignId, phoneNumberId);
    const keys = recordIngestedKeys(prefix, number, campaignId, randomBytes(8).toString('hex'));
    const chunk = JSON.stringify(compact);
    const duplicateWindowMs = this.context.duplicateWindowMs;
    const [queued, already, reopened] = this.context.waitsForReplicas
      ? await this.#recordOnReplicas(keys, [chunk, campaignId, clock.arg(), duplicateWindowMs, INGEST_MARK_MS])
      : await redis.cwRecordIngested(...keys, chunk, campaignId, clock.arg(), duplicateWindowMs, 0);
    return { queued: queued.map(Number), alreadySent: pairsOf(already), reopened: Number(reopened) };
  }

  /**
   * REDIS_WAIT_REPLICAS: the chunk is recorded once its writes are on the replicas, for the rows it
   * reports recorded must survive a failover. WAIT speaks only for its own connection's writes, so a
   * wait that ran on another connection (a failover came between the script and the wait) cannot
   * say whether the node now holding the campaign has the chunk. The call's mark says: with it
   * the node has all the call's writes (a script replicates whole), and its answer stands once a
   * write there (the mark's expiry) is on the replicas in turn; without it the chunk is recorded
   * again there. Recording again is safe either way: a row already there keeps its state.
   */
  async #recordOnReplicas(keys: RecordIngestedKeys, args: RecordIngestedArgs): Promise<RawIngest> {
    const { redis } = this.context;
    const [campaignKey, , , , , markKey] = keys;
    for (let attempt = 1; attempt <= RECORD_RECONNECTS; attempt++) {
      const recorded = await ledgerScriptOnConnection<RawIngest>(redis, 'cwRecordIngested', [...keys, ...args]);
      let connection = recorded.connection;
      for (let check = 1; check <= RECORD_RECONNECTS; check++) {
        if (await this.context.replicated(campaignKey, connection)) return recorded.reply;
        const marked = await onConnection<number>(redis, markKey, (pipeline) => pipeline.pexpire(markKey, INGEST_MARK_MS));
        if (Number(marked.reply) !== 1) break;
        connection = marked.connection;
      }
    }
    throw connectionKeptChangingError(`a chunk of campaign ${args[1]}`, RECORD_RECONNECTS);
  }

  async priorSends(
    campaignId: string,
    phoneNumberId: string,
    rows: readonly { row: number; fingerprint: string }[],
  ): Promise<AlreadySent[]> {
    const { redis, prefix, clock, duplicateWindowMs } = this.context;
    if (rows.length === 0 || duplicateWindowMs <= 0) return [];
    const { phoneNumberId: number } = await this.context.keys(campaignId, phoneNumberId);
    const args = rows.flatMap((r) => [String(r.row), r.fingerprint]);
    return pairsOf(
      await redis.cwPriorSends(...priorSendsKeys(prefix, number, campaignId), campaignId, clock.arg(), duplicateWindowMs, ...args),
    );
  }

  async allowRepeat(campaignId: string): Promise<void> {
    await this.context.redis.hset((await this.context.keys(campaignId)).campaign, 'allowRepeat', '1');
  }

  async markIngestInterrupted(campaignId: string, reason: string): Promise<boolean> {
    return (
      (await this.context.redis.cwIngestInterrupted((await this.context.keys(campaignId)).campaign, reason, this.context.clock.arg())) === 1
    );
  }

  async liftIngestPause(campaignId: string): Promise<boolean> {
    const { prefix, redis } = this.context;
    const { phoneNumberId } = await this.context.keys(campaignId);
    return (await redis.cwLiftIngestPause(...brakeKeys(prefix, phoneNumberId, campaignId))) === 1;
  }

  async finishIngest(campaignId: string): Promise<boolean> {
    return (await this.context.redis.cwFinishIngest((await this.context.keys(campaignId)).campaign, this.context.clock.arg())) === 1;
  }

  async recordLanes(campaignId: string, lanes: readonly { index: number; zones: readonly string[] }[]): Promise<void> {
    if (lanes.length === 0) return;
    await this.context.redis.hset(
      (await this.context.keys(campaignId)).lanes,
      ...lanes.flatMap((lane) => [String(lane.index), lane.zones.join('&')]),
    );
  }

  async lanes(campaignId: string): Promise<string[][]> {
    return lanesOf(await this.context.redis.hgetall((await this.context.keys(campaignId)).lanes));
  }
}
