import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PORTFOLIO_NUMBERS, PortfolioPipeline } from '../support/portfolio-pipeline.js';

/**
 * FREQUENCY_CAPS through the real pipeline (sandbox, `campaign serve`, worker), two numbers of
 * one portfolio: a marketing campaign on number A reaches three people; a second marketing
 * campaign on number B within the day skips each of them as FREQUENCY_CAPPED and sends the one
 * newcomer; a utility campaign is not capped; --ignore-frequency-caps sends anyway.
 */
const [NUMBER_A, NUMBER_B] = PORTFOLIO_NUMBERS;
const FIRST = ['+4915110000001', '+4915110000002', '+4915110000003'];
const NEWCOMER = '+4915110000004';

describe('FREQUENCY_CAPS=marketing:1/24h holds per recipient across the numbers of a portfolio', () => {
  let pipeline: PortfolioPipeline;

  beforeEach(async () => {
    pipeline = await PortfolioPipeline.start({ name: 'frequency-caps', env: { FREQUENCY_CAPS: 'marketing:1/24h' } });
  });

  afterEach(async () => {
    await pipeline.close();
  });

  const acceptedFrom = (number: string) => pipeline.sandbox.accepted().filter((m) => m.phoneNumberId === number);

  it('a second marketing campaign on another number skips every recipient of the first; utility is not capped', async () => {
    const first = await pipeline.send('first', NUMBER_A, FIRST);
    expect((await pipeline.rows(first)).map((r) => r.status)).toEqual(['sent', 'sent', 'sent']);

    // The plan counts them first, as an estimate: the claim decides.
    const plan = await pipeline.dryRun('second', NUMBER_B, [...FIRST, NEWCOMER]);
    expect(plan).toMatchObject({ frequencyCapped: 3, queued: 4 });
    const second = await pipeline.send('second', NUMBER_B, [...FIRST, NEWCOMER]);
    const rows = await pipeline.rows(second);
    expect(rows.map((r) => [r.phone, r.status, r.errorCode])).toEqual([
      ...FIRST.map((phone) => [phone, 'skipped', 'FREQUENCY_CAPPED']),
      [NEWCOMER, 'sent', undefined],
    ]);
    expect(rows[0]?.errorDetail).toMatch(/FREQUENCY_CAPS marketing:1\/24h: .* the next one may go from \d{4}-\d\d-\d\dT/);
    expect(acceptedFrom(NUMBER_B).map((m) => m.to)).toEqual([NEWCOMER]);

    const utility = await pipeline.send('utility', NUMBER_B, FIRST, 'order_update');
    expect((await pipeline.rows(utility)).map((r) => r.status)).toEqual(['sent', 'sent', 'sent']);

    const recall = await pipeline.send('recall', NUMBER_B, FIRST.slice(0, 1), 'spring_promo', {
      ignoreFrequencyCaps: true,
      allowRepeat: true,
    });
    expect((await pipeline.rows(recall)).map((r) => r.status)).toEqual(['sent']);
  }, 60_000);
});
