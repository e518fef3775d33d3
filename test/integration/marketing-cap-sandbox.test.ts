import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PORTFOLIO_NUMBERS, PortfolioPipeline } from '../support/portfolio-pipeline.js';
import { TestClock } from '../support/test-clock.js';
import { waitFor } from '../support/waiting.js';

/**
 * Meta's marketing cap (131049) through the real pipeline: the sandbox (its `recipientErrors`
 * fault fails Ana's first send by status webhook with 131049), `campaign serve` (its intake and
 * consumer) and the worker, two numbers of one portfolio. Campaign 1 on number A learns the cap;
 * campaign 2, MARKETING, on number B within 24 h skips Ana as MARKETING_CAP_WAIT and sends the
 * others; a UTILITY campaign still reaches her; once the ledger's clock (the worker's and
 * `send`'s, moved by the test) is past the 24 h, a MARKETING campaign sends to her again.
 */
const [NUMBER_A, NUMBER_B] = PORTFOLIO_NUMBERS;
const ANA = '+4915110000001';
const BRUNO = '+4915110000002';
const CARLA = '+4915110000003';
const DAY = 24 * 3_600_000;

describe("Meta's marketing cap holds for the portfolio for 24 h (sandbox, serve, worker)", () => {
  let pipeline: PortfolioPipeline;
  let clock: TestClock;

  beforeEach(async () => {
    // The worker and `send` share a ledger whose clock the test moves (running: BullMQ's delays still pass).
    clock = TestClock.running();
    pipeline = await PortfolioPipeline.start({ name: 'marketing-cap', clock });
  });

  afterEach(async () => {
    await pipeline.close();
  });

  const campaign = (...args: Parameters<PortfolioPipeline['send']>) => pipeline.send(...args);
  const rows = (id: string) => pipeline.rows(id);
  const acceptedFrom = (number: string): { to: string; template: string | undefined }[] =>
    pipeline.sandbox
      .accepted()
      .filter((m) => m.phoneNumberId === number)
      .map((m) => ({ to: m.to, template: (m.body as { template?: { name?: string } }).template?.name }));

  it('campaign 2 on B skips Ana within 24 h and sends the others; UTILITY still reaches her; after 24 h she is sent again', async () => {
    pipeline.sandbox.setFaults({ recipientErrors: [{ waId: ANA.slice(1), code: 131049, times: 1 }] });
    const first = await campaign('first', NUMBER_A, [ANA, BRUNO]);
    // Accepted, then failed by Meta's status webhook, which `campaign serve` applies.
    const [anaFirst] = await waitFor(() => rows(first), {
      what: "Ana's first row failed with 131049",
      until: (r) => r[0]?.status === 'failed',
    });
    expect(anaFirst).toMatchObject({ phone: ANA, status: 'failed', errorCode: '131049' });
    // serve gives the cap to every number of the portfolio.
    await waitFor(() => pipeline.context.ledger.marketingCaps(NUMBER_B), { what: "Ana's cap on number B", until: (caps) => caps.has(ANA) });

    const second = await campaign('second', NUMBER_B, [ANA, CARLA]);
    const [anaRow, carlaRow] = await rows(second);
    expect(anaRow).toMatchObject({ phone: ANA, status: 'skipped', errorCode: 'MARKETING_CAP_WAIT' });
    expect(anaRow?.errorDetail).toMatch(/Meta answered 131049 .*no MARKETING template goes to them before \d{4}-\d\d-\d\dT/);
    expect(carlaRow).toMatchObject({ phone: CARLA, status: 'sent' });
    expect(acceptedFrom(NUMBER_B)).toEqual([{ to: CARLA, template: 'spring_promo' }]);

    const utility = await campaign('utility', NUMBER_B, [ANA], 'order_update');
    expect((await rows(utility))[0]).toMatchObject({ phone: ANA, status: 'sent' });

    clock.advance(DAY + 60_000);
    const later = await campaign('later', NUMBER_B, [ANA]);
    expect((await rows(later))[0]).toMatchObject({ phone: ANA, status: 'sent' });
    expect(acceptedFrom(NUMBER_B)).toEqual([
      { to: CARLA, template: 'spring_promo' },
      { to: ANA, template: 'order_update' },
      { to: ANA, template: 'spring_promo' },
    ]);
  }, 60_000);
});
