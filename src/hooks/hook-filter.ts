import type { CampaignEvent } from '../events/campaign-event.js';
import type { HookDefinition } from './hook.js';

/** Whether the hook receives the event: one of its events, and of its campaign when it names one. */
export function hookWants(
  hook: Pick<HookDefinition, 'events' | 'campaignId'>,
  event: Pick<CampaignEvent, 'type' | 'campaign_id'>,
): boolean {
  return hook.events.includes(event.type) && (hook.campaignId === undefined || hook.campaignId === event.campaign_id);
}
