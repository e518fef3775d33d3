import { metaWamidParts } from '../../cloud-api/wamid-shape.js';
import { packedHexId } from './row-codec.js';

/**
 * What the scripts that record a message ID (settle.lua, apply-statuses.lua) are given beside
 * it, so a row can keep it small (includes/wamid-compact.lua): the digits of Meta's shape and
 * the row's `m` (the packed hex ID), or two empty strings for an ID of any other shape. The
 * script keeps `m` only when those digits are the row's own phone: readers rebuild the ID from
 * both. Decoded here, natively: in Lua the decode takes Redis, which every send waits on, about 17 µs a sent row.
 */
export function wamidKeepArgs(wamid: string): [digits: string, m: string] {
  const parts = wamid === '' ? undefined : metaWamidParts(wamid);
  return parts === undefined ? ['', ''] : [parts.digits, packedHexId(parts.hexId)];
}
