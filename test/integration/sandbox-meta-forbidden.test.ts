import { afterEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/index.js';
import { orderUpdate, send, startTestSandbox } from './sandbox-helpers.js';

/**
 * Meta answers the account-level integrity errors 368 (temporarily blocked for policy
 * violations) and 131031 (account locked) with HTTP 403 (Meta's error-codes page); every
 * other forced error keeps the 400 Meta sends synchronous errors with.
 */
let sandbox: Sandbox | undefined;

afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

const recipient = (n: number) => `+4477009001${String(n).padStart(2, '0')}`;

describe('sandbox 403 errors (Meta: error codes, integrity errors)', () => {
  it('answers 368 and 131031 with 403 and their titles; other forced codes stay 400', async () => {
    sandbox = await startTestSandbox({
      faults: {
        recipientErrors: [
          { waId: '447700900101', code: 368, times: 1 },
          { waId: '447700900102', code: 131031, times: 1 },
          { waId: '447700900103', code: 131048, times: 1 },
          { waId: '447700900104', code: 131000, times: 1 },
        ],
      },
    });
    const replies = [];
    for (let n = 1; n <= 4; n++) replies.push(await send(sandbox, orderUpdate(recipient(n))));
    expect(replies.map((r) => [r.status, r.body.error?.code])).toEqual([
      [403, 368],
      [403, 131031],
      [400, 131048],
      [400, 131000],
    ]);
    expect(replies[0]?.body.error?.message).toBe('(#368) Temporarily blocked for policies violations');
    expect(replies[1]?.body.error?.message).toBe('(#131031) Account has been locked');
    // Used up: the next send to each goes through.
    expect((await send(sandbox, orderUpdate(recipient(1)))).status).toBe(200);
  });
});
