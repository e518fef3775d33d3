/**
 * A template's status changed (reference cloud-api.md §3.7: Meta's `message_template_status_update`
 * webhook), or a send's 132015 / 132016 said so. `event` is Meta's (PAUSED, DISABLED, REINSTATED…), or a
 * send's error code: the ledger reads 132015 as PAUSED and 132016 as DISABLED (includes/template-hold.lua).
 */
export interface TemplateStatusUpdate {
  event: string;
  name: string;
  language: string;
  /** Meta's `reason` (or the send's error), for the pause's reason; may be empty. */
  detail: string;
}

/** What a template's status did to one campaign (template-status.lua). */
export interface TemplateStatusOutcome {
  campaignId: string;
  outcome: 'paused' | 'held' | 'resumed' | 'lifted' | 'missing' | 'other-template' | 'finished' | 'already-held' | 'not-held' | 'ignored';
}

/**
 * Meta's `message_template_quality_update` (quality score: GREEN, YELLOW, RED, UNKNOWN) or
 * `template_category_update` (category: MARKETING, UTILITY, AUTHENTICATION) for one template.
 */
export interface TemplateInfoUpdate {
  kind: 'quality' | 'category';
  name: string;
  language: string;
  /** The new quality score or category. */
  value: string;
  /** The one before it ('' when Meta did not say). */
  previous: string;
  /** When Meta sent it (ms): the newest one of a kind wins. */
  at: number;
}

/** A template's quality score and category as Meta's webhooks last said them. */
export interface TemplateInfo {
  quality?: { value: string; previous: string; at: number };
  category?: { value: string; previous: string; at: number };
}
