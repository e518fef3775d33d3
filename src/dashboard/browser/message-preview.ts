import type { CsvHead, CsvHeadRow } from '../../csv/csv-head.js';
import { renderPlaceholders } from '../../templates/template-requirements.js';
import type { CampaignChoice } from './campaign-choice.js';
import type { Mapping, TemplateModel } from './template-model.js';
import { TEXT_PLACEHOLDER } from '../../campaigns/text-placeholder.js';

export type RenderedHeader = { kind: 'text'; text: string } | { kind: 'media'; format: string; url: string } | { kind: 'location' };

/** One row's message as its chat bubble shows it. */
export interface RenderedMessage {
  header: RenderedHeader | null;
  body: string;
  footer: string | null;
  buttons: string[];
}

function valueOf(header: readonly string[], row: readonly string[], column: string | null | undefined): string {
  const i = column == null ? -1 : header.indexOf(column);
  return i < 0 ? '' : (row[i] ?? '');
}

/** The value of a slot's column, when a column of the file is chosen for it. */
function chosen(header: readonly string[], row: readonly string[], column: string | null | undefined): string | undefined {
  return column != null && header.includes(column) ? valueOf(header, row, column) : undefined;
}

/** The message for one row, as its chat bubble shows it: header, body with the values, footer, button labels. */
export function renderTemplate(model: TemplateModel, mapping: Mapping, header: readonly string[], row: readonly string[]): RenderedMessage {
  // A variable with no column yet shows as {{1}} / {{name}}: what is still to choose.
  const bodyValues = new Map<string, string>();
  for (const v of model.body.variables) {
    const value = chosen(header, row, mapping[`body:${v}`]);
    if (value !== undefined) bodyValues.set(v, value);
  }
  let head: RenderedHeader | null = null;
  if (model.header.kind === 'text') {
    const values = new Map<string, string>();
    const variable = model.header.variables[0];
    const value = chosen(header, row, mapping['header:text']);
    if (variable !== undefined && value !== undefined) values.set(variable, value);
    head = { kind: 'text', text: renderPlaceholders(model.header.text, values) };
  } else if (model.header.kind === 'media') {
    head = { kind: 'media', format: model.header.format, url: valueOf(header, row, mapping['header:media']) };
  } else if (model.header.kind === 'location') head = { kind: 'location' };
  return {
    header: head,
    body: renderPlaceholders(model.body.text, bodyValues),
    footer: model.footer,
    buttons: model.buttons.map((b) => b.text),
  };
}

/** A text message for one row: its {{column}} placeholders filled from the row. */
export function renderText(body: string, header: readonly string[], row: readonly string[]): RenderedMessage {
  const text = body.replace(TEXT_PLACEHOLDER, (all, name: string) => {
    const i = header.indexOf(name.trim());
    return i < 0 ? all : (row[i] ?? '');
  });
  return { header: null, body: text, footer: null, buttons: [] };
}

/** The columns a text names, each once. */
export function textColumns(body: string): string[] {
  const seen = new Set<string>();
  for (const match of body.matchAll(TEXT_PLACEHOLDER)) seen.add((match[1] ?? '').trim());
  return [...seen];
}

/** The columns a row needs filled to be sent: the phone, the mapped ones, a text's placeholders. */
function neededColumns(choice: CampaignChoice): string[] {
  if (choice.kind === 'text') return [choice.phoneColumn, ...textColumns(choice.text ?? '')];
  return [choice.phoneColumn, ...Object.values(choice.mapping ?? {}).filter((c): c is string => Boolean(c))];
}

/**
 * The first rows worth previewing: every needed column filled, and not among the rows the
 * last dry run refused (by their numbers, which are the service's).
 */
export function previewRows(head: CsvHead, choice: CampaignChoice, refusedRows: readonly number[], count: number): CsvHeadRow[] {
  const needed = neededColumns(choice).filter(Boolean);
  const filled = (row: CsvHeadRow) => needed.every((c) => valueOf(head.header, row.values, c).trim() !== '');
  return head.rows.filter((row) => !refusedRows.includes(row.number) && filled(row)).slice(0, count);
}
