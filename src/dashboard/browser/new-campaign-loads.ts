import { callApi, listOf } from './api-client.js';
import type { NumberAnswer } from './api-answers.js';
import { byId, clear } from './dom.js';
import { option } from './new-campaign-form.js';
import { templateModel, type TemplateInput, type TemplateModel } from './template-model.js';

/** A list the page could not load: said above the form, as an empty list would look like an account without any. */
export function loadError(text: string): void {
  const e = byId('nc-load-error');
  e.textContent = text;
  e.hidden = false;
}

function numberLabel(n: NumberAnswer): string {
  const rate = n.sendRate === 0 ? 'unpaced' : `${n.sendRate} msg/s`;
  return `${n.phoneNumberId} (${rate}${n.portfolio && n.portfolio !== 'default' ? `, portfolio ${n.portfolio}` : ''})`;
}

/** The numbers to send from (`GET /api/v1/numbers`), the service's default chosen. */
export async function loadNumbers(token: string): Promise<void> {
  const answer = await callApi('/api/v1/numbers', token);
  if (!answer.ok) return loadError(`The numbers could not be read (HTTP ${answer.status}).`);
  const select = byId<HTMLSelectElement>('nc-number');
  clear(select);
  const numbers = listOf<NumberAnswer>(answer.body, 'numbers');
  if (numbers.length === 0) select.appendChild(option('', '(none known: set WHATSAPP_PHONE_NUMBER_ID)', true));
  for (const n of numbers) select.appendChild(option(n.phoneNumberId, numberLabel(n), n.isDefault === true));
}

/** The templates (`GET /api/v1/templates`) as the page uses them, their names offered once each; [] when they cannot be read. */
export async function loadTemplates(token: string): Promise<TemplateModel[]> {
  const answer = await callApi('/api/v1/templates', token);
  if (!answer.ok) {
    loadError(`The templates could not be read (HTTP ${answer.status}).`);
    return [];
  }
  const templates = listOf<TemplateInput>(answer.body, 'templates').map(templateModel);
  const select = byId<HTMLSelectElement>('nc-template');
  clear(select);
  select.appendChild(option('', '(choose a template)', true));
  for (const name of [...new Set(templates.map((t) => t.name))].sort()) select.appendChild(option(name, name, false));
  return templates;
}
