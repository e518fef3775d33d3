import { campaignLedgerKeys } from '../ledger/ledger-keys.js';

/**
 * Where tracked links live. `GET /c/{token}` knows nothing but the token, so one index outside any
 * number's scope says whose it is: `<prefix>:clicks`, token → "<number>/<campaign>" (a plain hash,
 * read and written one key per command: no cluster slot is crossed). The rest, the row and its
 * destination, stays with the campaign in its number's slot: `<scope>:campaign:<id>:clicks`,
 * token → "<row>/<destination>", where the click's script reads it beside the row.
 */
export function clickIndexKey(prefix: string): string {
  return `${prefix}:clicks`;
}

/** A campaign's links: token → "<row>/<destination>", in the campaign's slot. */
export function campaignClicksKey(prefix: string, phoneNumberId: string, campaignId: string): string {
  return `${campaignLedgerKeys(prefix, phoneNumberId, campaignId).campaign}:clicks`;
}

/** The keys record-click.lua takes, in its header's order. */
export function recordClickKeys(prefix: string, phoneNumberId: string, campaignId: string): [string, string, string] {
  const keys = campaignLedgerKeys(prefix, phoneNumberId, campaignId);
  return [keys.campaign, keys.rows, campaignClicksKey(prefix, phoneNumberId, campaignId)];
}
