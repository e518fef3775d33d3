import type { ClickLink } from '../../clicks/click-links.js';
import { newClickToken } from '../../clicks/click-token.js';
import type { CampaignDefinition } from '../campaign.js';
import type { IngestedRow } from '../ledger.js';
import { planOfRow } from '../row-plan.js';

/** The rows of one ledger write, as an ingest run gathers them. */
export interface Chunk {
  rows: IngestedRow[];
  /** The tracked links of its rows (`trackClicks`), recorded before the rows are queued. */
  links: ClickLink[];
  /** Rows of the chunk that passed every check. */
  toSend: number;
  /** Line, recipient and lane of each row to send, for the rejects file and the plan if it is skipped. */
  where: Map<number, RowPlace>;
}

/** Where a gathered row came from and what it was counted under, to uncount it if it is not sent after all. */
export interface RowPlace {
  line: number;
  phone: string;
  lane?: number;
  country: string;
  language?: string;
}

export function newChunk(): Chunk {
  return { rows: [], links: [], toSend: 0, where: new Map() };
}

/**
 * A row's values as they are sent: for a campaign that tracks clicks, its tracked button gets a
 * new token in place of its destination (checked by checkRow), and the link joins the chunk, to be
 * recorded with it. Any other campaign's values as they are.
 */
export function withClickToken(chunk: Chunk, definition: CampaignDefinition, row: number, values: string[]): string[] {
  const { clicks } = definition;
  if (clicks === undefined) return values;
  const index = planOfRow(definition, values)?.slots.findIndex((slot) => slot.name === clicks.slot) ?? -1;
  const url = values[index];
  if (url === undefined) return values;
  const token = newClickToken();
  chunk.links.push({ token, row, url });
  return values.map((value, i) => (i === index ? token : value));
}

/** The chunk's links of rows still to be queued (not skipped since they were gathered). */
export function queuedLinks(chunk: Chunk): ClickLink[] {
  if (chunk.links.length === 0) return [];
  const queued = new Set(chunk.rows.flatMap((r) => (r.status === 'queued' ? [r.row] : [])));
  return chunk.links.filter((link) => queued.has(link.row));
}
