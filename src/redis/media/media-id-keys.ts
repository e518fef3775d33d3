import { numberScope } from '../key-scope.js';

const SOURCE_KEY = /^[0-9a-f]{64}$/;

/**
 * The key of one uploaded media ID: in its number's scope (the number's hash tag, so a cluster
 * keeps it in the slot of the number's other keys), then `media-id:` and the source's key, the
 * hex SHA-256 mediaSourceKey gives (src/media/media-source.ts). Only that digest is accepted:
 * no text a CSV or an API caller wrote becomes part of a key.
 */
export function mediaIdKey(prefix: string, phoneNumberId: string, sourceKey: string): string {
  if (!SOURCE_KEY.test(sourceKey)) throw new RangeError('a media source key is a hex SHA-256 (mediaSourceKey)');
  return `${numberScope(prefix, phoneNumberId)}:media-id:${sourceKey}`;
}
