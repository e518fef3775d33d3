import { afterEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/index.js';
import { orderUpdate, send, startTestSandbox } from './sandbox-helpers.js';

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
    // Twenty concurrent sends to different users arrive well within one second.
    const replies = await Promise.all(Array.from({ length: 20 }, (_, i) => send(s, orderUpdate(recipient(i)))));

    const accepted = replies.filter((r) => r.status === 200);
    const throttled = replies.filter((r) => r.status === 400 && r.body.error?.code === 130429);
    expect(accepted.length).toBeLessThanOrEqual(5);
    expect(accepted.length).toBeGreaterThan(0);
    expect(accepted.length + throttled.length).toBe(20);
    expect(throttled[0]?.body.error?.message).toBe('(#130429) Rate limit hit');
    expect(s.stats().busiestSecond).toBeLessThanOrEqual(5);
    expect(s.stats().accepted).toBe(accepted.length);
    expect(s.accepted()).toHaveLength(accepted.length);
  });

  it('answers 400 / 131056 when one recipient gets more than the burst', async () => {
    sandbox = await startTestSandbox({ pairLimit: { burst: 2, refillMs: 60_000 } });
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
