import type { CampaignStatus } from '../campaigns/campaign.js';
import type { CampaignHistory, HistoryEntry } from '../campaigns/history/campaign-history.js';
import type { TemplateInfo } from '../campaigns/template-status.js';
import { translationKey } from '../templates/language-code.js';
import type { AccountError } from '../campaigns/settle/account-errors.js';
import type { ReportLedger } from '../campaigns/ledger.js';
import type { TimelineLedger } from '../campaigns/report/campaign-timeline.js';
import { windowStatus, type WindowStatus } from '../campaigns/report/window-status.js';
import type { MetricsSnapshot } from '../metrics/scrape-reader.js';
import type { CampaignDirectory, CampaignIdentity } from './campaign-directory.js';
import { campaignCharts, type CampaignCharts } from './campaign-charts.js';
import { campaignView, type CampaignView } from './campaign-view.js';
import type { ErrorTallies, ErrorTally } from './error-tallies.js';

export interface DashboardReaderDeps {
  /**
   * States and counts: the ledger's status(), as `campaign status` shows them; a windowed
   * campaign's lanes' backlogs for its page; its timeline for its page's charts
   * (src/redis/ledger/ledger-timeline.ts: without it the page has no charts).
   */
  ledger: Pick<ReportLedger, 'status' | 'laneBacklogs'> & Partial<TimelineLedger>;
  directory: CampaignDirectory;
  /** The metrics figures (src/metrics/scrape-reader.ts, kept without retention): ETA per campaign, rate per number. */
  snapshot: () => Promise<Pick<MetricsSnapshot, 'campaigns' | 'numbers'>>;
  tallies: ErrorTallies;
  /** What Meta's template webhooks last said, by "<name>\n<language>" (src/redis/templates/redis-template-info.ts). */
  templateInfos?: () => Promise<ReadonlyMap<string, TemplateInfo>>;
  /** Who created and controlled each campaign (its page's History); without it the page shows none. */
  history?: Pick<CampaignHistory, 'list'>;
  /** The newest account-level errors Meta reported (src/redis/metrics/redis-account-errors.ts); without it the page shows none. */
  accountErrors?: () => Promise<AccountError[]>;
  now?: () => number;
}

export interface CampaignDetail {
  view: CampaignView;
  status: CampaignStatus;
  identity: CampaignIdentity;
  tally: ErrorTally;
  /** Newest first; absent when the reader has no history. */
  history?: HistoryEntry[];
}

/**
 * What the pages show, read at each request: the ledger's status of every campaign (one
 * HGETALL each, in parallel) and the metrics snapshot (counters and per-second rates, no row
 * is read). Errors by code come from the tallies' cache; only a campaign's own page waits for
 * a count.
 */
export class DashboardReader {
  constructor(private readonly deps: DashboardReaderDeps) {}

  /** The newest account-level errors Meta reported, newest first. */
  async accountErrors(): Promise<AccountError[]> {
    return (await this.deps.accountErrors?.()) ?? [];
  }

  /** Every campaign, newest first. */
  async list(): Promise<CampaignView[]> {
    const { directory, ledger, tallies } = this.deps;
    const [ids, snapshot, infos] = await Promise.all([directory.ids(), this.deps.snapshot(), this.#infos()]);
    const found = await Promise.all(
      ids.map(async (id) => {
        const [status, identity] = await Promise.all([ledger.status(id), directory.identity(id)]);
        return status === undefined ? undefined : { status, identity };
      }),
    );
    tallies.retain(ids);
    // In the directory's order: newest first, as every list of campaigns (campaign-order.ts).
    return found
      .filter((f) => f !== undefined)
      .map(({ status, identity }) =>
        campaignView(status, extras(identity, status, snapshot, tallies.peek(status.id, status.counts), infos)),
      );
  }

  /** One campaign for its page, with its errors counted (waits for a count when the cached one is stale). */
  async detail(campaignId: string): Promise<CampaignDetail | undefined> {
    const status = await this.deps.ledger.status(campaignId);
    if (status === undefined) return undefined;
    const [identity, snapshot, tally, infos, history] = await Promise.all([
      this.deps.directory.identity(campaignId),
      this.deps.snapshot(),
      this.deps.tallies.fresh(campaignId, status.counts),
      this.#infos(),
      this.deps.history?.list(campaignId),
    ]);
    const windowed = await this.#windowStatus(identity, status);
    return {
      view: campaignView(status, { ...extras(identity, status, snapshot, tally, infos), windowStatus: windowed }),
      status,
      identity,
      tally,
      ...(history === undefined ? {} : { history }),
    };
  }

  /** One campaign for its page's live updates (never waits for a count). */
  async live(campaignId: string): Promise<CampaignView | undefined> {
    const status = await this.deps.ledger.status(campaignId);
    if (status === undefined) return undefined;
    const [identity, snapshot, infos] = await Promise.all([this.deps.directory.identity(campaignId), this.deps.snapshot(), this.#infos()]);
    const windowed = await this.#windowStatus(identity, status);
    return campaignView(status, {
      ...extras(identity, status, snapshot, this.deps.tallies.peek(campaignId, status.counts), infos),
      windowStatus: windowed,
    });
  }

  /**
   * A campaign's charts (its page, and its live JSON): its status, its timeline (one MULTI of
   * a few hundred fields at most) and its errors by code as counted (never waits for a count,
   * unless `tally` is given). Undefined without a timeline reader or such a campaign.
   */
  async charts(campaignId: string, tally?: ErrorTally): Promise<CampaignCharts | undefined> {
    const { ledger } = this.deps;
    if (ledger.timeline === undefined) return undefined;
    const [status, timeline] = await Promise.all([ledger.status(campaignId), ledger.timeline(campaignId)]);
    if (status === undefined || timeline === undefined) return undefined;
    return campaignCharts(status, timeline, tally ?? this.deps.tallies.peek(campaignId, status.counts));
  }

  /** The campaign's name for people (its report's file name); undefined without one. */
  async name(campaignId: string): Promise<string | undefined> {
    return (await this.deps.directory.identity(campaignId)).name;
  }

  #infos(): Promise<ReadonlyMap<string, TemplateInfo>> {
    return this.deps.templateInfos?.() ?? Promise.resolve(new Map());
  }

  /** As `campaign status` says it: the rows waiting for their window now and when the next opens (one campaign's lanes: its page only). */
  async #windowStatus(identity: CampaignIdentity, status: CampaignStatus): Promise<WindowStatus | undefined> {
    if (identity.window === undefined || status.state === 'cancelled' || status.state === 'completed') return undefined;
    return windowStatus(identity.window, await this.deps.ledger.laneBacklogs(status.id), (this.deps.now ?? Date.now)());
  }
}

function extras(
  identity: CampaignIdentity,
  status: CampaignStatus,
  snapshot: Pick<MetricsSnapshot, 'campaigns' | 'numbers'>,
  tally: ErrorTally | undefined,
  infos: ReadonlyMap<string, TemplateInfo>,
) {
  const figures = snapshot.campaigns.find((c) => c.id === status.id)?.figures;
  const number = snapshot.numbers.find((n) => n.phoneNumberId === identity.phoneNumberId);
  return {
    name: identity.name,
    phoneNumberId: identity.phoneNumberId,
    message: identity.message,
    window: identity.window,
    etaSeconds: figures?.etaSeconds,
    numberRate: number?.rate,
    tally,
    templateNote:
      identity.template === undefined
        ? undefined
        : templateNote(infos.get(translationKey(identity.template.name, identity.template.language))),
  };
}

/** `quality YELLOW (was GREEN) · category MARKETING (was UTILITY)`; undefined when no webhook said anything. */
export function templateNote(info: TemplateInfo | undefined): string | undefined {
  if (info === undefined) return undefined;
  const said = (what: string, s: { value: string; previous: string } | undefined) =>
    s === undefined ? [] : [`${what} ${s.value}${s.previous === '' ? '' : ` (was ${s.previous})`}`];
  const parts = [...said('quality', info.quality), ...said('category', info.category)];
  return parts.length === 0 ? undefined : parts.join(' · ');
}
