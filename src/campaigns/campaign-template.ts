import { AppError } from '../errors/app-error.js';
import type { TemplateRequirements } from '../templates/template-requirements.js';
import type { CampaignDefinition } from './campaign.js';

/**
 * The template part of a campaign, checked against the approved template when one is known:
 * a mapping that cannot produce a valid send refuses the campaign before any job exists.
 */
export function campaignTemplate(
  name: string,
  language: string,
  requirements: TemplateRequirements | undefined,
  columns: { paramColumns: readonly string[]; headerImageColumn?: string | undefined },
): CampaignDefinition['template'] {
  if (requirements === undefined) {
    // No template list to check against: positional, in the order the columns were given.
    return {
      name,
      language,
      parameterFormat: 'POSITIONAL',
      bodyVariables: columns.paramColumns.map((_, i) => String(i + 1)),
      ...(columns.headerImageColumn === undefined ? {} : { headerMedia: 'image' as const }),
    };
  }
  const problems: string[] = [];
  if (requirements.status !== 'APPROVED') problems.push(`its status is ${requirements.status}, only APPROVED templates can be sent`);
  const wanted = requirements.body.variables;
  if (wanted.length !== columns.paramColumns.length) {
    problems.push(
      `its body takes ${wanted.length} variable(s) (${wanted.map((v) => `{{${v}}}`).join(' ') || 'none'}) ` +
        `but --params names ${columns.paramColumns.length} column(s)`,
    );
  }
  let headerMedia: 'image' | 'video' | 'document' | undefined;
  if (requirements.header.kind === 'media') {
    headerMedia = requirements.header.format.toLowerCase() as 'image' | 'video' | 'document';
    if (columns.headerImageColumn === undefined) problems.push(`its header needs a ${headerMedia} link: pass --header-image-column`);
  } else if (columns.headerImageColumn !== undefined) {
    problems.push('it has no media header, so --header-image-column does not apply');
  }
  if (requirements.header.kind === 'location') problems.push('its header is a LOCATION, which this version does not fill yet');
  if (requirements.header.kind === 'text' && requirements.header.variables.length > 0) {
    problems.push('its text header has a variable, which this version does not fill yet');
  }
  if (requirements.urlButtons.length > 0) problems.push('it has URL-button variables, which this version does not fill yet');
  if (problems.length > 0) {
    throw new AppError('TEMPLATE_MAPPING_INVALID', `Template ${name} (${language}) cannot be sent with these columns: ${problems.join('; ')}. Nothing was enqueued.`);
  }
  return {
    name,
    language,
    parameterFormat: requirements.parameterFormat,
    bodyVariables: wanted,
    ...(headerMedia === undefined ? {} : { headerMedia }),
  };
}
