import type { CsvHead, CsvHeadRow } from '../../csv/csv-head.js';
import type { CampaignChoice } from './campaign-choice.js';
import {
  renderButtons,
  renderCards,
  renderHeader,
  renderOffer,
  renderProducts,
  fillText,
  type RenderedButton,
  type RenderedCard,
  type RenderedHeader,
  type RenderedOffer,
  type RenderedProducts,
  type SlotValue,
} from './rendered-parts.js';
import { columnOf, type Mapping } from './slot-choices.js';
import type { TemplateModel } from './template-model.js';
import { TEXT_PLACEHOLDER } from '../../campaigns/text-placeholder.js';

export type { RenderedButton, RenderedCard, RenderedHeader, RenderedOffer, RenderedProducts } from './rendered-parts.js';

/** One row's message as its chat bubble shows it. */
export interface RenderedMessage {
  header: RenderedHeader | null;
  /** A limited-time offer's heading and countdown. */
  offer: RenderedOffer | null;
  body: string;
  footer: string | null;
  buttons: RenderedButton[];
  /** A carousel's cards, in order; [] for other kinds. */
  cards: RenderedCard[];
  products: RenderedProducts | null;
}

function valueOf(header: readonly string[], row: readonly string[], column: string | null | undefined): string {
  const i = column == null ? -1 : header.indexOf(column);
  return i < 0 ? '' : (row[i] ?? '');
}

/** A row's value of each slot: the cell of its column (or of the slot it is filled from), when a column of the file is chosen. */
function slotValues(model: TemplateModel, mapping: Mapping, header: readonly string[], row: readonly string[]): SlotValue {
  return (slot) => {
    const column = columnOf(model, mapping, slot);
    return column !== null && header.includes(column) ? valueOf(header, row, column) : undefined;
  };
}

/**
 * The message for one row, as its chat bubble shows it: header (text, media link, place or
 * product), a limited-time offer, body with the values, footer, buttons (a coupon's code), a
 * carousel's cards and a catalog's products, each from its slots' columns.
 */
export function renderTemplate(model: TemplateModel, mapping: Mapping, header: readonly string[], row: readonly string[]): RenderedMessage {
  const value = slotValues(model, mapping, header, row);
  return {
    header: renderHeader(model.header, '', value),
    offer: renderOffer(model, value),
    body: fillText(model.body, (v) => `body.${v}`, value),
    footer: model.footer,
    buttons: renderButtons(model.buttons, '', value),
    cards: renderCards(model, value),
    products: renderProducts(model, value),
  };
}

/** A text message for one row: its {{column}} placeholders filled from the row. */
export function renderText(body: string, header: readonly string[], row: readonly string[]): RenderedMessage {
  const text = body.replace(TEXT_PLACEHOLDER, (all, name: string) => {
    const i = header.indexOf(name.trim());
    return i < 0 ? all : (row[i] ?? '');
  });
  return { header: null, offer: null, body: text, footer: null, buttons: [], cards: [], products: null };
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
