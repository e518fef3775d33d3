import { cappedKindOf, type CappedKind, type FrequencyCap } from '../../config/frequency-caps.js';
import type { CampaignDefinition } from '../../campaigns/campaign.js';
import type { CountedSend, FrequencyGuard, FrequencyVerdict } from '../../campaigns/send/frequency-guard.js';
import { portfolioOf, type PortfolioAssignments } from '../../portfolios/portfolios.js';
import type { LedgerClock } from '../ledger/ledger-clock.js';
import type { RedisClient } from '../key-scope.js';
import { loadLuaCommand } from '../lua-scripts.js';
import { frequencyKeys } from './frequency-keys.js';

interface FrequencyCommands {
  cwFrequencyTake(frequency: string, cursor: string, clock: string, caps: string, keep: number, ...rows: string[]): Promise<string[]>;
  cwFrequencyRelease(frequency: string, ...rows: string[]): Promise<number>;
}

const LETTER: Readonly<Record<CappedKind, string>> = { marketing: 'm', utility: 'u', authentication: 'a', text: 't', any: '*' };
const KIND_OF_LETTER: Readonly<Record<string, string>> = { m: 'marketing', u: 'utility', a: 'authentication', t: 'text', '*': 'any' };

/** The caps in Redis (src/redis/lua/frequency/take.lua), each portfolio's in its own slot. */
export class RedisFrequencyGuard implements FrequencyGuard {
  readonly #redis: RedisClient & FrequencyCommands;
  readonly #prefix: string;
  readonly #portfolios: PortfolioAssignments;
  readonly #caps: readonly FrequencyCap[];
  readonly #capsArg: string;
  readonly #keep: number;
  readonly #clock: LedgerClock;

  constructor(
    redis: RedisClient,
    options: { prefix: string; portfolios: PortfolioAssignments; caps: readonly FrequencyCap[]; clock: LedgerClock },
  ) {
    if (!('cwFrequencyTake' in redis)) redis.defineCommand('cwFrequencyTake', loadLuaCommand('frequency/take'));
    if (!('cwFrequencyRelease' in redis)) redis.defineCommand('cwFrequencyRelease', loadLuaCommand('frequency/release'));
    this.#redis = redis as RedisClient & FrequencyCommands;
    this.#prefix = options.prefix;
    this.#portfolios = options.portfolios;
    this.#caps = options.caps;
    this.#capsArg = options.caps.map((cap) => `${LETTER[cap.kind]}:${cap.count}:${cap.windowMs}`).join(';');
    this.#keep = Math.max(0, ...options.caps.map((cap) => cap.windowMs));
    this.#clock = options.clock;
  }

  async take(definition: CampaignDefinition, phone: string): Promise<FrequencyVerdict> {
    const kind = this.#kindCounted(definition);
    if (kind === undefined) return { outcome: 'free' };
    const keys = frequencyKeys(this.#prefix, portfolioOf(this.#portfolios, definition.phoneNumberId));
    const mode = definition.ignoreFrequencyCaps === true ? 'count' : 'check';
    const [outcome, value, frees] = await this.#redis.cwFrequencyTake(
      keys.frequency,
      keys.cursor,
      this.#clock.arg(),
      this.#capsArg,
      this.#keep,
      phone,
      LETTER[kind],
      mode,
    );
    if (outcome === 'taken') return { outcome, counted: { phoneNumberId: definition.phoneNumberId, phone, entry: value ?? '' } };
    return { outcome: 'capped', detail: this.#detail(value ?? '', Number(frees)) };
  }

  async capped(definition: CampaignDefinition, phones: readonly string[]): Promise<boolean[]> {
    const kind = this.#kindCounted(definition);
    if (kind === undefined || phones.length === 0) return phones.map(() => false);
    const keys = frequencyKeys(this.#prefix, portfolioOf(this.#portfolios, definition.phoneNumberId));
    const rows = phones.flatMap((phone) => [phone, LETTER[kind], 'peek']);
    const answers = await this.#redis.cwFrequencyTake(keys.frequency, keys.cursor, this.#clock.arg(), this.#capsArg, this.#keep, ...rows);
    return phones.map((_, i) => answers[i * 3] === 'capped');
  }

  async release(counted: CountedSend): Promise<void> {
    const { frequency } = frequencyKeys(this.#prefix, portfolioOf(this.#portfolios, counted.phoneNumberId));
    await this.#redis.cwFrequencyRelease(frequency, counted.phone, counted.entry);
  }

  /** The kind the campaign's sends count as, when a cap names it; a test send reaches the team's own phones: never counted. */
  #kindCounted(definition: CampaignDefinition): Exclude<CappedKind, 'any'> | undefined {
    const kind = cappedKindOf(definition);
    if (definition.test === true || kind === undefined) return undefined;
    return this.#caps.some((cap) => cap.kind === kind || cap.kind === 'any') ? kind : undefined;
  }

  /** FREQUENCY_CAPPED's detail: the cap as FREQUENCY_CAPS writes it, and when the recipient may get one again. */
  #detail(cap: string, frees: number): string {
    const [letter, count, window] = cap.split(':');
    const written = this.#caps.find((c) => LETTER[c.kind] === letter && String(c.count) === count && String(c.windowMs) === window);
    const name = written?.text ?? `${KIND_OF_LETTER[letter ?? ''] ?? letter}:${count}`;
    const when = Number.isFinite(frees) ? `; the next one may go from ${new Date(frees).toISOString()}` : '';
    return `FREQUENCY_CAPS ${name}: the recipient already got that many from this business portfolio within the window${when}`;
  }
}
