import { afterEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/index.js';
import { PHONE_NUMBER_ID, orderUpdate, send, startTestSandbox } from './sandbox-helpers.js';

/**
 * Meta's pair rate limit as a debt (reference §4): a pair may burst up to 45 messages
 * "borrowed from future quota", then must wait what the burst would take at one message per
 * 6 s ("a burst of 20 requires a ~2-minute wait"). The sandbox's clock moves; nothing sleeps.
 */
let sandbox: Sandbox | undefined;

afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

const TO = '+447700900123';
const SECOND = 1000;

describe('sandbox pair rate limit (debt model)', () => {
  it('after a burst of 45, refuses the pair until 45 × 6 s have passed, not 6.5 s later', async () => {
    let now = Date.parse('2026-11-25T12:00:00Z');
    const start = now;
    sandbox = await startTestSandbox({ clock: () => now, messagesPerSecond: 0 });
    for (let i = 0; i < 45; i++) expect((await send(sandbox, orderUpdate(TO))).status, `send ${i + 1}`).toBe(200);
    const refused = await send(sandbox, orderUpdate(TO));
    expect(refused.body.error?.code).toBe(131056);
    now = start + 6.5 * SECOND;
    expect((await send(sandbox, orderUpdate(TO))).body.error?.code).toBe(131056);
    now = start + 45 * 6 * SECOND - 1;
    expect((await send(sandbox, orderUpdate(TO))).body.error?.code).toBe(131056);
    // Another recipient was never limited.
    expect((await send(sandbox, orderUpdate('+447700900124'))).status).toBe(200);
    now = start + 45 * 6 * SECOND;
    expect((await send(sandbox, orderUpdate(TO))).status).toBe(200);
    expect(sandbox.stats().rejectedByCode).toEqual({ '131056': 3 });
  });

  it('a burst of 20 is paid after about 2 minutes; until then the pair may still borrow up to 45', async () => {
    let now = Date.parse('2026-11-25T12:00:00Z');
    const start = now;
    sandbox = await startTestSandbox({ clock: () => now, messagesPerSecond: 0, phoneNumberIds: [PHONE_NUMBER_ID, '999'] });
    for (let i = 0; i < 20; i++) expect((await send(sandbox, orderUpdate(TO))).status).toBe(200);
    // One minute in: 20 are borrowed, 25 more may be.
    now = start + 60 * SECOND;
    for (let i = 0; i < 25; i++) expect((await send(sandbox, orderUpdate(TO))).status, `borrow ${i + 21}`).toBe(200);
    expect((await send(sandbox, orderUpdate(TO))).body.error?.code).toBe(131056);
    expect((await send(sandbox, orderUpdate(TO), { phoneNumberId: '999' })).status).toBe(200);
    // 45 sends are paid at start + 45 × 6 s (the 25 borrowed late pushed the debt on, not from their own time).
    now = start + 45 * 6 * SECOND;
    expect((await send(sandbox, orderUpdate(TO))).status).toBe(200);
  });

  it('paid at 6 s per message: a pair that sent 20 is free again 2 minutes later, with its whole burst', async () => {
    let now = Date.parse('2026-11-25T12:00:00Z');
    const start = now;
    sandbox = await startTestSandbox({ clock: () => now, messagesPerSecond: 0 });
    for (let i = 0; i < 20; i++) expect((await send(sandbox, orderUpdate(TO))).status).toBe(200);
    now = start + 120 * SECOND;
    // Fully paid: the borrowed count starts again, so 45 more go through.
    for (let i = 0; i < 45; i++) expect((await send(sandbox, orderUpdate(TO))).status, `send ${i + 1}`).toBe(200);
    expect((await send(sandbox, orderUpdate(TO))).body.error?.code).toBe(131056);
  });
});
