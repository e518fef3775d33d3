import { portfolioScope } from '../pacer/portfolio-keys.js';

/**
 * Where a portfolio's audiences live: every key in the portfolio's scope (one hash tag), so
 * the rename of a staged import, the transaction that records it and the reads beside the
 * portfolio's opt-outs and user links stay in one cluster slot.
 *
 * - `index`: sorted set, audience name → ms of its last import (what retention reads);
 * - `meta`: hash, the audience's columns (JSON), times, file and last import's counts;
 * - `contacts`: hash, phone (E.164) → packed attributes (src/audiences/attribute-packing.ts);
 * - `staging(token)`: hash, a `--replace` (or first) import being written, renamed onto `contacts` at its end;
 * - `history`: list, newest first, one JSON line per audience deleted, purged or expired.
 */
export interface AudienceKeys {
  index: string;
  history: string;
  meta: string;
  contacts: string;
  staging(token: string): string;
}

export function audienceKeys(prefix: string, portfolio: string, name: string): AudienceKeys {
  const scope = portfolioScope(prefix, portfolio);
  const audience = `${scope}:audience:${name}`;
  return {
    index: `${scope}:audiences`,
    history: `${scope}:audience-history`,
    meta: `${audience}:meta`,
    contacts: `${audience}:contacts`,
    staging: (token) => `${audience}:staging:${token}`,
  };
}

/** The portfolios that have (or had) audiences: what the retention sweep walks. Outside any portfolio's slot, written alone. */
export function audiencePortfoliosKey(prefix: string): string {
  return `${prefix}:audience-portfolios`;
}
