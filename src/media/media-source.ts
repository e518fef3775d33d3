import { createHash } from 'node:crypto';
import { basename, resolve } from 'node:path';
import { extensionOf } from './media-formats.js';
import { describeUrl } from './media-problem.js';

/** Where a header's media comes from: a link in the CSV or the API's spec, or a file the operator named. */
export type MediaSource = { kind: 'url'; url: string } | { kind: 'file'; path: string };

/**
 * What identifies a source in the store of uploaded media IDs (src/redis/media): the hex
 * SHA-256 of its kind and its locator (the URL as the WHATWG parser writes it, or the file's
 * absolute path). Hashed so that no link (whose query may hold a signature) is written to Redis
 * in clear, and a key stays short whatever the URL. The content is not part of the key: its
 * digest is stored with the ID, so a file replaced at the same URL is uploaded again at the
 * next campaign's check instead of filling the store with one entry per version.
 */
export function mediaSourceKey(source: MediaSource): string {
  return createHash('sha256')
    .update(`${source.kind}\n${locatorOf(source)}`)
    .digest('hex');
}

function locatorOf(source: MediaSource): string {
  if (source.kind === 'file') return resolve(source.path);
  try {
    return new URL(source.url).href;
  } catch {
    return source.url;
  }
}

/** How a detail names the source: a URL without query or user info, or the path as the operator gave it. */
export function describeSource(source: MediaSource): string {
  return source.kind === 'url' ? describeUrl(source.url) : source.path;
}

/**
 * The file name of the upload: the last segment of the URL's path or the file's name, reduced
 * to safe characters and given the extension of its type ("banner.jpg", "media.pdf").
 */
export function uploadFileName(source: MediaSource, mimeType: string): string {
  let name = '';
  if (source.kind === 'file') name = basename(source.path);
  else {
    try {
      name = decodeURIComponent(new URL(source.url).pathname.split('/').pop() ?? '');
    } catch {
      name = '';
    }
  }
  const extension = extensionOf(mimeType);
  const stem =
    name
      .replace(/\.[A-Za-z0-9]{1,5}$/, '')
      .replace(/[^A-Za-z0-9_-]+/g, '_')
      .slice(0, 80) || 'media';
  return extension === undefined ? stem : `${stem}.${extension}`;
}
