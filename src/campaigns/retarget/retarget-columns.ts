import { campaignMessage, type CampaignDefinition } from '../campaign.js';

/** A stored row's cells as the ledger keeps them: the recipient, its values in the message's order, its header link. */
export interface StoredCells {
  phone: string;
  values: readonly string[];
  headerLink?: string | undefined;
}

/**
 * The columns a retargeted file has: the source's phone column, then each column its message
 * read (template slots or text placeholders, once each, in order), then its media-header
 * column. The ledger keeps a row's recipient and these values only, not the other cells of
 * the source file, so these are every column the new campaign can map.
 */
export function retargetHeader(definition: CampaignDefinition): string[] {
  const message = campaignMessage(definition);
  const valueColumns = message.kind === 'text' ? message.text.columns : message.plan.slots.map((slot) => slot.column);
  const media = message.kind === 'template' ? message.plan.headerMedia?.column : undefined;
  return unique([definition.source.phoneColumn, ...valueColumns, ...(media === undefined ? [] : [media])]);
}

/** One row's cells under `retargetHeader(definition)`; a column two variables read holds the first one's value. */
export function retargetCells(definition: CampaignDefinition, header: readonly string[], row: StoredCells): string[] {
  const message = campaignMessage(definition);
  const valueColumns = message.kind === 'text' ? message.text.columns : message.plan.slots.map((slot) => slot.column);
  const cells = new Map<string, string>();
  valueColumns.forEach((column, i) => {
    if (!cells.has(column)) cells.set(column, row.values[i] ?? '');
  });
  const media = message.kind === 'template' ? message.plan.headerMedia?.column : undefined;
  if (media !== undefined && !cells.has(media)) cells.set(media, row.headerLink ?? '');
  cells.set(definition.source.phoneColumn, row.phone);
  return header.map((column) => cells.get(column) ?? '');
}

function unique(columns: readonly string[]): string[] {
  return [...new Set(columns)];
}
