import type { CampaignDefinition } from './campaign.js';
import type { SendPlan } from './send-plan.js';

/**
 * The plan a row of a template campaign is sent with: the campaign's, or with a language per
 * row the plan of the translation its first value names (the producer wrote the language the
 * row is sent in there). Undefined when no plan of the campaign has that language.
 */
export function planOfRow(definition: CampaignDefinition, values: readonly string[]): SendPlan | undefined {
  const languages = definition.languages;
  if (languages === undefined) return definition.plan;
  return languages.plans.find((plan) => plan.language === values[0]);
}
