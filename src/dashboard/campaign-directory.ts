import { ZodError } from 'zod';
import { campaignMessage, describeMessage } from '../campaigns/campaign.js';
import { newestFirst } from '../campaigns/campaign-order.js';
import type { ReportLedger } from '../campaigns/ledger.js';
import type { SendWindow } from '../campaigns/feed/send-window.js';
import { sameMessageOf, type SameMessage } from './retarget-form.js';

/** What a campaign's definition says that the dashboard shows: fixed when it was created. */
export interface CampaignIdentity {
  /** Its name for people; undefined for a campaign stored without one (or whose definition could not be read). */
  name?: string | undefined;
  /** '' when its definition could not be read. */
  phoneNumberId: string;
  /** `template order_update (en_US)` or `text "…"`. */
  message: string;
  /** `--window` / `--days`; undefined without one (or when its definition could not be read). */
  window?: SendWindow | undefined;
  /** A template campaign's template, to show what Meta's webhooks say of it (quality, category). */
  template?: { name: string; language: string } | undefined;
  /** What a retarget of it sends unless told otherwise: its own message (its Retarget form). */
  sameMessage?: SameMessage | undefined;
}

/**
 * The campaigns under this prefix (the ledger's list) and, for each, its phone number and
 * message, read from its definition once: a definition never changes, so a page view or a
 * poll reads only the list and the campaigns' counters, never the definitions again.
 */
export class CampaignDirectory {
  readonly #ledger: Pick<ReportLedger, 'listCampaigns' | 'getCampaign'>;
  readonly #known = new Map<string, CampaignIdentity>();

  constructor(ledger: Pick<ReportLedger, 'listCampaigns' | 'getCampaign'>) {
    this.#ledger = ledger;
  }

  /** Newest first, as every list of campaigns (src/campaigns/campaign-order.ts). */
  async ids(): Promise<string[]> {
    return newestFirst(await this.#ledger.listCampaigns());
  }

  async identity(campaignId: string): Promise<CampaignIdentity> {
    const known = this.#known.get(campaignId);
    if (known !== undefined) return known;
    const definition = await this.#ledger.getCampaign(campaignId).catch((error: unknown) => {
      // A definition the schema refuses (another version's) is shown without its details; Redis away is an error.
      if (error instanceof ZodError || error instanceof SyntaxError) return undefined;
      throw error;
    });
    if (definition === undefined) return { phoneNumberId: '', message: '' };
    let message = '';
    let sameMessage: SameMessage | undefined;
    try {
      message = describeMessage(campaignMessage(definition));
      sameMessage = sameMessageOf(campaignMessage(definition), definition.clicks);
    } catch {
      // Neither a template nor a text: shown without one.
    }
    const plan = definition.plan;
    const template = plan === undefined ? undefined : { name: plan.name, language: plan.language };
    const { name, phoneNumberId, window } = definition;
    const identity = { name, phoneNumberId, message, window, template, sameMessage };
    this.#known.set(campaignId, identity);
    return identity;
  }

  /** Every phone number that has a campaign here, sorted. */
  async numbers(): Promise<string[]> {
    const identities = await Promise.all((await this.ids()).map((id) => this.identity(id)));
    return [...new Set(identities.map((i) => i.phoneNumberId).filter((n) => n !== ''))].sort();
  }
}
