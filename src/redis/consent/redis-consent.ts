import type { ConsentEntry, ConsentStore } from '../../consent/consent-entry.js';
import type { RedisClient } from '../key-scope.js';
import { LUA_DIR, loadLuaCommand, type LuaCommand } from '../lua-scripts.js';
import { KIND_CODES, decodeHistory, encodeAt, newestIsOptIn } from './consent-encoding.js';
import { consentKeys } from './consent-keys.js';

/** Entries kept per person: the newest; an audit asks how the current state came about, not for every change ever. */
export const CONSENT_KEPT = 20;
/** Entries per script call: one call's arguments stay small whatever the size of an import. */
export const CONSENT_ENTRIES_PER_CALL = 500;
/** Phones per read of `consented`. */
const PHONES_PER_READ = 1000;

/** record.lua (src/redis/lua/consent/record.lua): its header says why it is one step. Read at its first use. */
let recordScript: LuaCommand | undefined;

interface ConsentCommands {
  cwConsentRecord(consent: string, sources: string, keep: number, ...entries: string[]): Promise<number>;
}

/**
 * The consent histories of every business portfolio (ConsentStore), one hash per portfolio in
 * its own scope (consent-keys.ts), kept by record.lua. A history is a few bytes per entry:
 * the source's words are kept once per portfolio, each entry names them by number.
 */
export class RedisConsent implements ConsentStore {
  readonly #redis: RedisClient & ConsentCommands;

  constructor(
    redis: RedisClient,
    private readonly prefix: string,
  ) {
    if (!('cwConsentRecord' in redis)) {
      recordScript ??= loadLuaCommand('record', new URL('consent/', LUA_DIR));
      redis.defineCommand('cwConsentRecord', recordScript);
    }
    this.#redis = redis as RedisClient & ConsentCommands;
  }

  async record(portfolio: string, entries: readonly ConsentEntry[]): Promise<void> {
    if (entries.length === 0) return;
    // Checked whole first: a bad entry part-way must not leave half an import recorded.
    const args = entries.map((e) => [digitsOf(e.phone), KIND_CODES[e.kind], encodeAt(e.at), e.source]);
    const { consent, sources } = consentKeys(this.prefix, portfolio);
    for (let i = 0; i < args.length; i += CONSENT_ENTRIES_PER_CALL) {
      await this.#redis.cwConsentRecord(consent, sources, CONSENT_KEPT, ...args.slice(i, i + CONSENT_ENTRIES_PER_CALL).flat());
    }
  }

  async history(portfolio: string, phone: string): Promise<ConsentEntry[]> {
    const { consent, sources } = consentKeys(this.prefix, portfolio);
    const stored = await this.#redis.hget(consent, digitsOf(phone));
    const entries = decodeHistory(stored ?? '');
    if (entries.length === 0) return [];
    const ids = [...new Set(entries.map((e) => e.sourceId))];
    const words = await this.#redis.hmget(sources, ...ids.map((id) => `i:${id}`));
    const wordsOf = new Map(ids.map((id, i) => [id, words[i] ?? '(source not found)']));
    const e164 = `+${digitsOf(phone)}`;
    return entries.map((e) => ({ phone: e164, kind: e.kind, at: e.at, source: wordsOf.get(e.sourceId) ?? '(source not found)' }));
  }

  async consented(portfolio: string, phones: readonly string[]): Promise<boolean[]> {
    const { consent } = consentKeys(this.prefix, portfolio);
    const fields = phones.map(digitsOf);
    const answers: boolean[] = [];
    for (let i = 0; i < fields.length; i += PHONES_PER_READ) {
      const stored = await this.#redis.hmget(consent, ...fields.slice(i, i + PHONES_PER_READ));
      for (const history of stored) answers.push(newestIsOptIn(history));
    }
    return answers;
  }
}

/** The hash field of a phone: E.164's digits (the '+' is the same for everyone). */
function digitsOf(phone: string): string {
  const digits = phone.startsWith('+') ? phone.slice(1) : phone;
  if (!/^\d{1,15}$/.test(digits)) throw new RangeError(`a consent entry's phone must be E.164 (+ and up to 15 digits), not "${phone}"`);
  return digits;
}
