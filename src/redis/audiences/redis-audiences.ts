import { randomBytes } from 'node:crypto';
import type { RedisClient } from '../key-scope.js';
import { RedisUserLinks } from '../webhooks/redis-user-links.js';
import { unpackValues } from '../../audiences/attribute-packing.js';
import { audienceKeys, audiencePortfoliosKey } from './audience-keys.js';
import { AudienceImportWriter } from './audience-import-writer.js';
import { audienceScripts } from './audience-scripts.js';
import { metaFields, storedAudience, type StoredAudience } from './stored-audience.js';

export type { StoredAudience } from './stored-audience.js';

/** One page of an audience's contacts: phone → its values in the audience's column order. */
export interface ContactPage {
  cursor: string;
  contacts: [phone: string, values: string[]][];
}

/** A line of a portfolio's audience history: an audience deleted, purged or expired. */
export interface AudienceHistoryLine {
  at: number;
  name: string;
  action: 'deleted' | 'purged' | 'expired';
  contacts: number;
}

/** Lines kept per portfolio. */
const HISTORY_LINES = 1000;

/**
 * The audiences of every business portfolio, kept in each portfolio's scope
 * (audience-keys.ts). Contacts are a hash, never read whole: the readers page through it.
 */
export class RedisAudiences {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
  ) {}

  async audience(portfolio: string, name: string): Promise<StoredAudience | undefined> {
    return storedAudience(name, await this.redis.hgetall(audienceKeys(this.prefix, portfolio, name).meta));
  }

  /** The portfolio's audiences by name, each with its contact count. */
  async list(portfolio: string): Promise<(StoredAudience & { contacts: number })[]> {
    const names = (await this.redis.zrange(audienceKeys(this.prefix, portfolio, '_').index, 0, -1)).sort();
    if (names.length === 0) return [];
    const pipeline = this.redis.pipeline();
    for (const name of names) {
      const keys = audienceKeys(this.prefix, portfolio, name);
      pipeline.hgetall(keys.meta).hlen(keys.contacts);
    }
    const answers = (await pipeline.exec()) ?? [];
    return names.flatMap((name, i) => {
      const audience = storedAudience(name, (answers[2 * i]?.[1] ?? {}) as Record<string, string>);
      return audience === undefined ? [] : [{ ...audience, contacts: Number(answers[2 * i + 1]?.[1] ?? 0) }];
    });
  }

  async contactCount(portfolio: string, name: string): Promise<number> {
    return this.redis.hlen(audienceKeys(this.prefix, portfolio, name).contacts);
  }

  /** Redis memory of the audience's contacts, sampled (MEMORY USAGE's default), in bytes; 0 when it has none. */
  async bytes(portfolio: string, name: string): Promise<number> {
    return (await this.redis.memory('USAGE', audienceKeys(this.prefix, portfolio, name).contacts)) ?? 0;
  }

  /**
   * A writer for an import into the audience with the file's `columns`: staged (a new
   * audience, or `replace`), or into its contacts. For a re-import, the file's new columns
   * join the audience's list before anything is written.
   */
  async openImport(portfolio: string, name: string, columns: readonly string[], replace: boolean): Promise<AudienceImportWriter> {
    const keys = audienceKeys(this.prefix, portfolio, name);
    const grown = replace ? null : await audienceScripts(this.redis).cwAudienceColumns(keys.meta, ...columns);
    if (grown === null) {
      const token = randomBytes(6).toString('hex');
      return new AudienceImportWriter(
        this.redis,
        keys.staging(token),
        'staged',
        columns,
        columns.map((_, i) => i),
      );
    }
    const all = unpackValues(grown);
    const positions = columns.map((column) => all.indexOf(column));
    return new AudienceImportWriter(this.redis, keys.contacts, positions.length === all.length ? 'direct' : 'merge', all, positions);
  }

  /**
   * Ends an import once its writer is flushed: a staged one replaces the audience's contacts
   * (RENAME: at once, in the portfolio's slot), and the meta and index say when and what.
   */
  async finishImport(portfolio: string, name: string, writer: AudienceImportWriter, audience: Omit<StoredAudience, 'name'>): Promise<void> {
    const keys = audienceKeys(this.prefix, portfolio, name);
    const tx = this.redis.multi();
    if (writer.mode === 'staged') {
      if (writer.written > 0) tx.rename(writer.key, keys.contacts).persist(keys.contacts);
      else tx.del(keys.contacts);
      tx.del(keys.meta);
    }
    tx.hset(keys.meta, { ...metaFields(audience), createdAt: String(audience.createdAt) });
    tx.zadd(keys.index, audience.updatedAt, name);
    const answers = (await tx.exec()) ?? [];
    const failed = answers.find(([error]) => error !== null);
    if (failed?.[0] != null) throw failed[0];
    await this.redis.sadd(audiencePortfoliosKey(this.prefix), portfolio);
  }

  /** Drops what a failed import staged (an upsert's written contacts stay: each was a whole, valid contact). */
  async abandonImport(writer: AudienceImportWriter): Promise<void> {
    if (writer.mode === 'staged') await this.redis.del(writer.key);
  }

  /** One page of contacts (HSCAN: a page may repeat a contact seen before while Redis resizes the hash). */
  async page(portfolio: string, name: string, cursor: string, count = 1000): Promise<ContactPage> {
    const [next, flat] = await this.redis.hscan(audienceKeys(this.prefix, portfolio, name).contacts, cursor, 'COUNT', count);
    const contacts: [string, string[]][] = [];
    for (let i = 0; i + 1 < flat.length; i += 2) contacts.push([flat[i] ?? '', unpackValues(flat[i + 1])]);
    return { cursor: next, contacts };
  }

  /** Removes the phones' contacts: per phone, whether it was there. */
  async remove(portfolio: string, name: string, phones: readonly string[]): Promise<boolean[]> {
    if (phones.length === 0) return [];
    const contacts = audienceKeys(this.prefix, portfolio, name).contacts;
    const pipeline = this.redis.pipeline();
    for (const phone of phones) pipeline.hdel(contacts, phone);
    const answers = (await pipeline.exec()) ?? [];
    return phones.map((_, i) => Number(answers[i]?.[1] ?? 0) === 1);
  }

  /** Deletes the audience whole: its contacts then, or undefined when there was none of that name. */
  async delete(portfolio: string, name: string): Promise<number | undefined> {
    const keys = audienceKeys(this.prefix, portfolio, name);
    const answers = (await this.redis.multi().hlen(keys.contacts).del(keys.meta, keys.contacts).zrem(keys.index, name).exec()) ?? [];
    const [contacts, deleted, unindexed] = answers.map(([, value]) => Number(value ?? 0));
    return (deleted ?? 0) > 0 || (unindexed ?? 0) > 0 ? (contacts ?? 0) : undefined;
  }

  /** Deletes the audience and says so in the portfolio's audience history (a delete, a purge, an expiry): the line, or undefined. */
  async drop(portfolio: string, name: string, action: AudienceHistoryLine['action'], at: number): Promise<AudienceHistoryLine | undefined> {
    const contacts = await this.delete(portfolio, name);
    if (contacts === undefined) return undefined;
    const line: AudienceHistoryLine = { at, name, action, contacts };
    await this.recordHistory(portfolio, line);
    return line;
  }

  /** The portfolio's audiences whose last import is at or before `cutoff` (ms). */
  async importedBefore(portfolio: string, cutoff: number): Promise<string[]> {
    return this.redis.zrangebyscore(audienceKeys(this.prefix, portfolio, '_').index, '-inf', cutoff);
  }

  /** Every portfolio that has had an audience. */
  async portfolios(): Promise<string[]> {
    return (await this.redis.smembers(audiencePortfoliosKey(this.prefix))).sort();
  }

  async recordHistory(portfolio: string, line: AudienceHistoryLine): Promise<void> {
    const key = audienceKeys(this.prefix, portfolio, '_').history;
    await this.redis
      .multi()
      .lpush(key, JSON.stringify(line))
      .ltrim(key, 0, HISTORY_LINES - 1)
      .exec();
  }

  /** The portfolio's audience history, newest first. */
  async history(portfolio: string): Promise<AudienceHistoryLine[]> {
    const lines = await this.redis.lrange(audienceKeys(this.prefix, portfolio, '_').history, 0, -1);
    return lines.map((line) => JSON.parse(line) as AudienceHistoryLine);
  }

  /** Per phone (E.164), the business-scoped user ID the portfolio's webhooks taught, if any. */
  async userIds(portfolio: string, phones: readonly string[]): Promise<(string | undefined)[]> {
    return new RedisUserLinks(this.redis, this.prefix).userIdsIn(portfolio, phones);
  }
}
