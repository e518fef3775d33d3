import { Secret } from './secret.js';

/**
 * RELAY_WEBHOOKS: where `serve` forwards every Meta webhook it accepted, byte for byte, so a
 * chat inbox or a bot behind the same Meta app still gets the replies (Meta allows one callback
 * URL per app). Comma-separated entries `URL` or `URL|SECRET`: a target with its own app secret
 * gets the body re-signed with it; one without gets Meta's own signature (the first
 * WHATSAPP_APP_SECRET), as if Meta had posted to it.
 */
export interface RelayTarget {
  /** Stable name of the target (its host and path), for metrics, logs and its place in the relay's stream. */
  name: string;
  url: string;
  /** The target's own app secret; undefined = sign with the first WHATSAPP_APP_SECRET. */
  secret: Secret | undefined;
}

/** The targets, or a sentence saying which entry is wrong and how to write it (the secret is never echoed). */
export function parseRelayTargets(text: string): RelayTarget[] | string {
  const targets: RelayTarget[] = [];
  const entries = text.split(',').map((entry) => entry.trim());
  for (const [index, entry] of entries.entries()) {
    const where = `entry ${index + 1} of ${entries.length}`;
    if (entry === '') return `${where} is empty: write URL or URL|SECRET, entries separated by commas`;
    const bar = entry.indexOf('|');
    const address = bar === -1 ? entry : entry.slice(0, bar);
    const secret = bar === -1 ? undefined : entry.slice(bar + 1);
    let url: URL;
    try {
      url = new URL(address);
    } catch {
      return `${where} is not a URL: write https://host/path, optionally followed by |SECRET`;
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return `${where} must be an http(s) URL, not ${url.protocol}`;
    if (secret !== undefined && !/^[\x21-\x7e]+$/.test(secret)) {
      return `${where}: the secret after | must be one word of printable characters (no spaces or line breaks)`;
    }
    const name = relayTargetName(url);
    if (targets.some((target) => target.name === name)) return `${where} repeats ${name}: give each target once`;
    targets.push({ name, url: url.href, secret: secret === undefined ? undefined : new Secret(secret) });
  }
  return targets;
}

/**
 * host + path, lower-case, every other character `-`: readable in a metric label and a Redis key.
 * Not the query: a receiver's token there would reach labels, logs and key names.
 */
function relayTargetName(url: URL): string {
  return `${url.host}${url.pathname}`
    .toLowerCase()
    .replace(/[^a-z0-9.]+/g, '-')
    .replace(/^-+|-+$/g, '');
}
