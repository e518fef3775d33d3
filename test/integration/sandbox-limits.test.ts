import { afterEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/index.js';
import { PHONE_NUMBER_ID, orderUpdate, send, startTestSandbox } from './sandbox-helpers.js';

/** Throughput (130429) and pair (131056) limits over real HTTP. */
let sandbox: Sandbox | undefined;

afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

const recipient = (n: number) => `+4477009${String(n).padStart(5, '0')}`;

describe('sandbox limits', () => {
  it('refuses sends beyond messagesPerSecond in a sliding second with 400 / 130429', async () => {
    sandbox = await startTestSandbox({ messagesPerSecond: 5 });
    const s = sandbox;
    // Twenty concurrent sends to different users. They usually all arrive within one second,
    // but a loaded machine can stretch that: the bound below holds however long they took.
    // The sandbox's clock is this process's Date.now(), so every arrival lies in [started, ended].
    const started = Date.now();
    const replies = await Promise.all(Array.from({ length: 20 }, (_, i) => send(s, orderUpdate(recipient(i)))));
    const ended = Date.now();

    const accepted = replies.filter((r) => r.status === 200);
    const throttled = replies.filter((r) => r.status === 400 && r.body.error?.code === 130429);
    // At most 5 in any sliding second: 5 per started second of the time the sends took.
    const ceiling = 5 * (Math.floor((ended - started) / 1000) + 1);
    const context = JSON.stringify({ tookMs: ended - started, accepted: accepted.length, stats: s.stats() });
    expect(accepted.length, context).toBeGreaterThan(0);
    expect(accepted.length, context).toBeLessThanOrEqual(Math.min(ceiling, 20));
    expect(accepted.length + throttled.length, context).toBe(20);
    expect(throttled.length, context).toBeGreaterThanOrEqual(20 - ceiling);
    for (const reply of throttled) expect(reply.body.error?.message).toBe('(#130429) Rate limit hit');
    // The sandbox's own measure of what it let through, on the clock that decided it.
    expect(s.stats().busiestSecond, context).toBeLessThanOrEqual(5);
    expect(s.stats().accepted).toBe(accepted.length);
    expect(s.accepted()).toHaveLength(accepted.length);
  });

  it('answers 400 / 131056 when one recipient gets more than the burst', async () => {
    sandbox = await startTestSandbox({ pairLimit: { burst: 2, refillMs: 60_000 }, phoneNumberIds: [PHONE_NUMBER_ID, '999'] });
    expect((await send(sandbox, orderUpdate(recipient(1)))).status).toBe(200);
    expect((await send(sandbox, orderUpdate(recipient(1)))).status).toBe(200);
    const third = await send(sandbox, orderUpdate(recipient(1)));
    expect(third.status).toBe(400);
    expect(third.body.error).toMatchObject({
      code: 131056,
      message: '(#131056) (Business Account, Consumer Account) pair rate limit hit',
    });
    // Other recipients, and the same recipient from another business number, are unaffected.
    expect((await send(sandbox, orderUpdate(recipient(2)))).status).toBe(200);
    expect((await send(sandbox, orderUpdate(recipient(1)), { phoneNumberId: '999' })).status).toBe(200);
    expect(sandbox.stats().rejectedByCode).toEqual({ '131056': 1 });
  });

  it('applies no pair limit when it is off', async () => {
    sandbox = await startTestSandbox({ pairLimit: false, messagesPerSecond: 0 });
    const s = sandbox;
    const replies = await Promise.all(Array.from({ length: 60 }, () => send(s, orderUpdate(recipient(1)))));
    expect(replies.every((r) => r.status === 200)).toBe(true);
  });
});
