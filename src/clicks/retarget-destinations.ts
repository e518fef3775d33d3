import type { CampaignDefinition } from '../campaigns/campaign.js';
import { planOfRow } from '../campaigns/row-plan.js';
import type { ClickLinks } from './click-links.js';

/**
 * Rows of a campaign that tracked clicks, with each tracked button's token turned back into the
 * row's destination: the value its `clickUrlColumn` held, which is what a retargeted file carries
 * in that column (a token is the old link's, never a new campaign's value). One read per page.
 */
export async function withDestinations<Row extends { values: readonly string[] }>(
  links: Pick<ClickLinks, 'destinations'>,
  source: CampaignDefinition,
  rows: readonly Row[],
): Promise<Row[]> {
  const { clicks } = source;
  if (clicks === undefined || rows.length === 0) return [...rows];
  const at = rows.map((row) => planOfRow(source, row.values)?.slots.findIndex((slot) => slot.name === clicks.slot) ?? -1);
  const tokens = rows.map((row, i) => row.values[at[i] ?? -1] ?? '');
  const urls = await links.destinations(source.phoneNumberId, source.id, tokens);
  return rows.map((row, i) => {
    const index = at[i] ?? -1;
    if (index < 0) return row;
    return { ...row, values: row.values.map((value, j) => (j === index ? (urls[i] ?? '') : value)) };
  });
}
