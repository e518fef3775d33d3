import type { AppContext } from '../../app/app-context.js';
import { listTemplates, syncTemplates, type TemplatesListOptions, type TemplatesOptions } from '../../app/templates.js';
import { templatesJson } from '../../app/views/template-view.js';
import { templatesText } from '../format-templates.js';
import { printableJson } from '../../text/operator-text.js';

type RegistryContext = Pick<AppContext, 'config' | 'logger' | 'redis'>;

/** `campaign templates sync`: syncTemplates (src/app/templates.ts), and the line saying what it fetched. */
export async function runTemplatesSync(context: RegistryContext, options: TemplatesOptions = {}): Promise<string> {
  const result = await syncTemplates(context, options);
  const noun = result.count === 1 ? 'template' : 'templates';
  return `Synced ${result.count} ${noun} from ${result.source} at ${new Date(result.syncedAt).toISOString()}`;
}

/** `campaign templates list`: listTemplates (src/app/templates.ts) as a table, or as JSON. */
export async function runTemplatesList(
  context: RegistryContext,
  options: TemplatesListOptions & { json?: boolean | undefined } = {},
): Promise<string> {
  const listing = await listTemplates(context, options);
  return options.json === true ? printableJson(JSON.stringify(templatesJson(listing))) : templatesText(listing);
}
