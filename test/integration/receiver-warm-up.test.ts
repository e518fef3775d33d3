import { afterEach, describe, expect, it } from 'vitest';
import { warmUpReceiver } from '../../bench/support/receiver-warm-up.js';
import { ACCESS_TOKEN, PHONE_NUMBER_ID } from '../../bench/support/product.js';
import type { Sandbox } from '../../src/sandbox/index.js';
import { startTestSandbox } from './sandbox-helpers.js';

let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

describe("the bench's receiver warm-up", () => {
  it('has every message accepted on both API versions, then leaves the sandbox reset', async () => {
    sandbox = await startTestSandbox({ accessToken: ACCESS_TOKEN, phoneNumberIds: [PHONE_NUMBER_ID], messagesPerSecond: 0 });
    const versions: string[] = [];
    sandbox.onAccepted((message) => versions.push(String(message.apiMajor)));
    await warmUpReceiver(sandbox.url, 200);
    expect(versions).toHaveLength(200);
    expect(new Set(versions)).toEqual(new Set(['25', '23']));
    expect(sandbox.stats().accepted).toBe(0);
    expect(sandbox.accepted()).toEqual([]);
  });

  it('fails, naming the answer, when the sandbox refuses a message', async () => {
    sandbox = await startTestSandbox({ accessToken: 'another-token', phoneNumberIds: [PHONE_NUMBER_ID], messagesPerSecond: 0 });
    await expect(warmUpReceiver(sandbox.url, 50)).rejects.toThrow(/sandbox warm-up message \d+: HTTP 401/);
  });
});
