import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PORTFOLIO_NUMBERS, PortfolioPipeline } from '../support/portfolio-pipeline.js';
import { TestClock } from '../support/test-clock.js';
import { waitFor } from '../support/waiting.js';

/**
 * `send --retry-capped-after 24h` through the real pipeline (sandbox, `campaign serve`, worker)
 * on a ledger clock the test moves: Meta fails Ana's MARKETING template with 131049 by status
 * webhook; nothing is sent again within the delay; once the clock is past it the worker's sweep
 * puts her row back and it is sent, once: a second 131049 is final.
 */
const [NUMBER_A] = PORTFOLIO_NUMBERS;
const ANA = '+4915110000001';
const BRUNO = '+4915110000002';
const CARLA = '+4915110000003';
const DAY = 24 * 3_600_000;

describe('--retry-capped-after retries a 131049 row once, after the delay (moved clock)', () => {
  let pipeline: PortfolioPipeline;
  let clock: TestClock;

  beforeEach(async () => {
    clock = TestClock.running();
    pipeline = await PortfolioPipeline.start({ name: 'retry-capped', clock });
  });

  afterEach(async () => {
    await pipeline.close();
  });

  const sendsTo = (phone: string) => pipeline.sandbox.accepted().filter((m) => m.to === phone).length;
  const rowOf = async (id: string, phone: string) => (await pipeline.rows(id)).find((r) => r.phone === phone);

  it('Ana is sent again once after 24 h; her second 131049 is final; Carla (capped, no option) is not', async () => {
    pipeline.sandbox.setFaults({
      recipientErrors: [
        { waId: ANA.slice(1), code: 131049, times: 2 },
        { waId: CARLA.slice(1), code: 131049, times: 1 },
      ],
    });
    const id = await pipeline.send('capped', NUMBER_A, [ANA, BRUNO], 'spring_promo', { retryCappedAfter: '24h' });
    const plain = await pipeline.send('plain', NUMBER_A, [CARLA]);
    await waitFor(() => rowOf(id, ANA), { what: "Ana's row failed with 131049", until: (r) => r?.status === 'failed' });
    await waitFor(() => rowOf(plain, CARLA), { what: "Carla's row failed with 131049", until: (r) => r?.status === 'failed' });
    expect(await rowOf(id, BRUNO)).toMatchObject({ status: 'sent' });

    // Within the delay the sweep the worker runs every second finds nothing due (asked here directly, on the same clock).
    clock.advance(DAY - 60_000);
    expect(await pipeline.context.ledger.retryCapped(NUMBER_A, 500)).toEqual({ requeued: 0, left: 0 });
    expect(await rowOf(id, ANA)).toMatchObject({ status: 'failed', errorCode: '131049' });
    expect(sendsTo(ANA)).toBe(1);

    clock.advance(2 * 60_000);
    await waitFor(() => Promise.resolve(sendsTo(ANA)), { what: "Ana's second send", until: (n) => n === 2, timeoutMs: 15_000 });
    const again = await waitFor(() => rowOf(id, ANA), { what: 'her second 131049', until: (r) => r?.status === 'failed' });
    expect(again).toMatchObject({ errorCode: '131049', requeue: 1 });

    // Once only: another day on, nothing is due.
    clock.advance(DAY + 60_000);
    expect(await pipeline.context.ledger.retryCapped(NUMBER_A, 500)).toEqual({ requeued: 0, left: 0 });
    expect(sendsTo(ANA)).toBe(2);
    expect(sendsTo(CARLA)).toBe(1);
    expect(await rowOf(plain, CARLA)).toMatchObject({ status: 'failed', errorCode: '131049' });
  }, 90_000);
});
