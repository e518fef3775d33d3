import type { SendTrouble, SendTroubleKind, SendTroubleObserver } from '../campaigns/send/send-trouble.js';
import type { Logger } from './logger.js';

/** A campaign's counts are logged at most this often (its first problem, and its end, at once). */
export const SUMMARY_EVERY_MS = 60_000;
/**
 * A number throttled again and again (SEND_RATE above what Meta allows it) would log a pause
 * a second: the same number and code are logged at most this often, with the pauses between.
 */
export const THROTTLE_LINE_EVERY_MS = 60_000;
/** What the operator can do about a throttle, where it is theirs to fix (maintenance is Meta's). */
const HINTS: Readonly<Record<string, string>> = {
  '130429': '; if this repeats, SEND_RATE (or SEND_RATES for this number) is above the throughput Meta allows it',
};
/** How often counts that nothing new has pushed out are looked at. */
const TICK_MS = 5000;

/** Summary order and wording, per kind: what an operator reads first is what lost rows. */
const KINDS: readonly { kind: SendTroubleKind; what: string; plural: string; verb: string }[] = [
  { kind: 'failed', what: 'row', plural: 'rows', verb: 'failed' },
  { kind: 'unknown', what: 'row', plural: 'rows', verb: 'in doubt (may have been sent; not resent)' },
  { kind: 'retried', what: 'send', plural: 'sends', verb: 'retried' },
  { kind: 'delayed', what: 'send', plural: 'sends', verb: 'delayed for their recipient' },
  { kind: 'throttled', what: 'send', plural: 'sends', verb: 'refused for the number’s throughput' },
];

interface CampaignTrouble {
  phoneNumberId: string;
  counts: Map<SendTroubleKind, Map<string, number>>;
  /** When the counts not yet logged began; undefined = none pending. */
  pendingSince: number | undefined;
  /** A pending count is not a throttle (whose own line is already out): the campaign's first summary goes out at once. */
  urgent: boolean;
  lastLineAt: number | undefined;
}

interface NumberPause {
  until: number;
  pauseMs: number;
  /** Per code: when its last line went out, and the pauses since then that had none. */
  lines: Map<string, { at: number; unlogged: number }>;
}

/**
 * The worker's account of what goes wrong, at the default level, without a line per row:
 * - a throttle of a number: one line per pause (the in-flight sends refused during that pause
 *   add none), and per number and code at most one a minute;
 * - per campaign, what failed, went in doubt, was retried, delayed or throttled, counted by
 *   code and logged at most once a minute; a campaign's first problem at once, so an operator
 *   does not wait a minute to hear of it; the rest when the campaign completes or the worker
 *   stops, so nothing counted is lost.
 * Halts are not counted here: the processor logs the pause they cause, once.
 */
export class SendTroubleLog implements SendTroubleObserver {
  readonly #logger: Logger;
  readonly #now: () => number;
  readonly #campaigns = new Map<string, CampaignTrouble>();
  readonly #numbers = new Map<string, NumberPause>();
  #timer: NodeJS.Timeout | undefined;

  constructor(options: { logger: Logger; now?: () => number }) {
    this.#logger = options.logger;
    this.#now = options.now ?? Date.now;
  }

  record(trouble: SendTrouble): void {
    const now = this.#now();
    if (trouble.kind === 'throttled') this.#throttled(trouble, now);
    const campaign = this.#campaign(trouble.campaignId, trouble.phoneNumberId);
    const byCode = campaign.counts.get(trouble.kind) ?? new Map<string, number>();
    byCode.set(trouble.code, (byCode.get(trouble.code) ?? 0) + 1);
    campaign.counts.set(trouble.kind, byCode);
    campaign.pendingSince ??= now;
    if (trouble.kind !== 'throttled') campaign.urgent = true;
    if (this.#due(campaign, now)) this.#summarise(trouble.campaignId, campaign, now);
  }

  /** The campaign has its last answer: what is pending is logged now, and it is forgotten. */
  campaignCompleted(campaignId: string): void {
    const campaign = this.#campaigns.get(campaignId);
    if (campaign === undefined) return;
    if (campaign.pendingSince !== undefined) this.#summarise(campaignId, campaign, this.#now());
    this.#campaigns.delete(campaignId);
  }

  /** Logs the summaries whose minute has passed; forgets campaigns quiet for a minute. */
  tick(): void {
    const now = this.#now();
    for (const [campaignId, campaign] of this.#campaigns) {
      if (this.#due(campaign, now)) this.#summarise(campaignId, campaign, now);
      else if (
        campaign.pendingSince === undefined &&
        (campaign.lastLineAt === undefined || now - campaign.lastLineAt >= SUMMARY_EVERY_MS)
      ) {
        // Its next problem is news again and is logged at once.
        this.#campaigns.delete(campaignId);
      }
    }
  }

  /** Logs every pending count now (the worker is stopping). */
  flush(): void {
    const now = this.#now();
    for (const [campaignId, campaign] of this.#campaigns) {
      if (campaign.pendingSince !== undefined) this.#summarise(campaignId, campaign, now);
    }
  }

  start(): void {
    this.#timer ??= setInterval(() => this.tick(), TICK_MS).unref();
  }

  /** Stops the timer and logs what is pending. */
  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.flush();
  }

  #throttled(trouble: Extract<SendTrouble, { kind: 'throttled' }>, now: number): void {
    const { phoneNumberId, code, pauseMs, campaignId } = trouble;
    const pause: NumberPause = this.#numbers.get(phoneNumberId) ?? {
      until: Number.NEGATIVE_INFINITY,
      pauseMs: 0,
      lines: new Map<string, { at: number; unlogged: number }>(),
    };
    this.#numbers.set(phoneNumberId, pause);
    // The sends that were in flight when the pause began are refused too: the same pause,
    // unless this one is longer (maintenance after a throughput error).
    const samePause = now < pause.until && pauseMs <= pause.pauseMs;
    if (now >= pause.until || pauseMs > pause.pauseMs) pause.pauseMs = pauseMs;
    pause.until = Math.max(pause.until, now + pauseMs);
    if (samePause) return;
    const line = pause.lines.get(code);
    if (line !== undefined && now - line.at < THROTTLE_LINE_EVERY_MS) {
      line.unlogged += 1;
      return;
    }
    const pauses = (line?.unlogged ?? 0) + 1;
    pause.lines.set(code, { at: now, unlogged: 0 });
    const earlier = pauses > 1 ? ` (${pauses} pauses for ${code} since the last such line)` : '';
    this.#logger.warn(
      { phoneNumberId, code, pauseMs, pauses, campaignId },
      `phone number ${phoneNumberId} throttled by Meta (${code}): every send from it paused ` +
        `${seconds(pauseMs)}${earlier}${HINTS[code] ?? ''}`,
    );
  }

  #campaign(campaignId: string, phoneNumberId: string): CampaignTrouble {
    let campaign = this.#campaigns.get(campaignId);
    if (campaign === undefined) {
      campaign = { phoneNumberId, counts: new Map(), pendingSince: undefined, urgent: false, lastLineAt: undefined };
      this.#campaigns.set(campaignId, campaign);
    }
    return campaign;
  }

  #due(campaign: CampaignTrouble, now: number): boolean {
    if (campaign.pendingSince === undefined) return false;
    if (campaign.lastLineAt === undefined) return campaign.urgent || now - campaign.pendingSince >= SUMMARY_EVERY_MS;
    return now - campaign.lastLineAt >= SUMMARY_EVERY_MS;
  }

  #summarise(campaignId: string, campaign: CampaignTrouble, now: number): void {
    const since = campaign.lastLineAt ?? campaign.pendingSince ?? now;
    const fields: Record<string, unknown> = {
      campaignId,
      phoneNumberId: campaign.phoneNumberId,
      seconds: Math.round((now - since) / 1000),
    };
    const parts: string[] = [];
    for (const { kind, what, plural, verb } of KINDS) {
      const byCode = campaign.counts.get(kind);
      if (byCode === undefined || byCode.size === 0) continue;
      const ordered = [...byCode].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
      const total = ordered.reduce((sum, [, n]) => sum + n, 0);
      fields[kind] = Object.fromEntries(ordered);
      parts.push(`${total} ${total === 1 ? what : plural} ${verb} (${ordered.map(([code, n]) => `${code} ×${n}`).join(', ')})`);
    }
    const period = now - since >= 1000 ? ` in the last ${seconds(now - since)}` : '';
    this.#logger.warn(
      fields,
      `campaign ${campaignId}: send problems${period}: ${parts.join('; ')} (\`campaign report ${campaignId}\` has every row)`,
    );
    campaign.counts.clear();
    campaign.pendingSince = undefined;
    campaign.urgent = false;
    campaign.lastLineAt = now;
  }
}

function seconds(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  const s = Math.round(ms / 1000);
  return s < 120 ? `${s} s` : `${Math.round(s / 60)} min`;
}
