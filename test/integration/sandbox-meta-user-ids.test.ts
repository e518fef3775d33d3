import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { loadTemplatesFile, type Sandbox, type SandboxOptions } from '../../src/sandbox/index.js';
import type { MessageTemplate } from '../../src/templates/template-schema.js';
import { orderUpdate, postJson, send, startTestSandbox, template, text } from './sandbox-helpers.js';

/**
 * Sends addressed to a business-scoped user ID (`recipient` instead of `to`; `to` wins if
 * both, reference cloud-api-2026.md §4 and Meta's business-scoped user ID page): the answer
 * names the user ID and no phone, the send reaches the same user as one to the phone (its
 * limits and faults), an ID the sandbox never issued is undeliverable (131026 by webhook),
 * and authentication templates are refused with 131062.
 */
let sandbox: Sandbox | undefined;
let receiver: Server | undefined;

afterEach(async () => {
  await sandbox?.close();
  await new Promise<void>((resolve) => (receiver === undefined ? resolve() : receiver.close(() => resolve())));
  sandbox = undefined;
  receiver = undefined;
});

const PHONE = '+447700900123';
const WA_ID = '447700900123';

const AUTH_TEMPLATE: MessageTemplate = {
  name: 'login_code',
  language: 'en_US',
  status: 'APPROVED',
  category: 'AUTHENTICATION',
  parameter_format: 'POSITIONAL',
  components: [{ type: 'BODY', text: '{{1}} is your verification code.' }],
};

/** A sandbox with webhooks (to a receiver that answers 200), where PHONE has written in: its user ID is issued. */
async function startWithUser(options: Partial<SandboxOptions> = {}): Promise<{ s: Sandbox; userId: string }> {
  receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200).end());
  });
  await new Promise<void>((resolve) => receiver?.listen(0, '127.0.0.1', () => resolve()));
  const url = `http://127.0.0.1:${(receiver?.address() as AddressInfo).port}/webhook`;
  const templates = [...(await loadTemplatesFile('samples/templates.json')), AUTH_TEMPLATE];
  const s = await startTestSandbox({ templates, ...options, webhooks: { url, appSecret: 'secret', batchMs: 1 } });
  sandbox = s;
  const inbound = await postJson<{ user_id: string }>(`${s.url}/_sandbox/inbound`, { from: PHONE, text: 'Hi' });
  expect(inbound.body.user_id).toMatch(/^GB\.\d{20}$/);
  return { s, userId: inbound.body.user_id };
}

/** The body without its `to`. */
function withoutTo(body: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(body).filter(([key]) => key !== 'to'));
}

/** orderUpdate addressed by `recipient` only. */
function toUser(userId: string): Record<string, unknown> {
  return { ...withoutTo(orderUpdate()), recipient: userId };
}

describe('sandbox sends to business-scoped user IDs', () => {
  it('answers with the user ID as input and user_id, no wa_id, and records the ID on the accepted message', async () => {
    const { s, userId } = await startWithUser();
    const reply = await send(s, toUser(userId));
    expect(reply.status).toBe(200);
    expect(reply.body.contacts).toEqual([{ input: userId, user_id: userId }]);
    expect(s.accepted().at(-1)).toMatchObject({ to: userId, waId: WA_ID, recipientUserId: userId });
    expect(s.accepted().at(-1)?.failure).toBeUndefined();

    // `to` wins when both are given: a phone send, with no user ID on it.
    const both = await send(s, { ...orderUpdate('+447700900999'), recipient: userId });
    expect(both.body.contacts).toEqual([{ input: '+447700900999', wa_id: '447700900999' }]);
    expect(s.accepted().at(-1)?.recipientUserId).toBeUndefined();
    expect(s.accepted().at(-1)?.waId).toBe('447700900999');
  });

  it("reaches the phone's user: the pair limit, the service window and forced errors are the phone's", async () => {
    const { s, userId } = await startWithUser({ pairLimit: { burst: 2, refillMs: 60_000 } });
    expect((await send(s, orderUpdate(PHONE))).status).toBe(200);
    expect((await send(s, toUser(userId))).status).toBe(200);
    // The third to the same user, however addressed, is over the pair's burst.
    expect((await send(s, toUser(userId))).body.error?.code).toBe(131056);
    expect((await send(s, orderUpdate(PHONE))).body.error?.code).toBe(131056);

    s.reset();
    // The user wrote in (startWithUser), so a text to their ID is inside their window.
    s.openServiceWindow(PHONE);
    const textToUser = { messaging_product: 'whatsapp', recipient: userId, type: 'text', text: { body: 'Hello' } };
    expect((await send(s, textToUser)).status).toBe(200);
    expect(s.accepted().at(-1)?.failure).toBeUndefined();

    s.setFaults({ recipientErrors: [{ waId: WA_ID, code: 131048, times: 1 }] });
    expect((await send(s, toUser(userId))).body.error?.code).toBe(131048);
  });

  it('accepts a user ID it never issued and reports it failed 131026, as an undeliverable recipient', async () => {
    const { s } = await startWithUser();
    const unknown = 'US.00000000000000000001';
    const reply = await send(s, toUser(unknown));
    expect(reply.status).toBe(200);
    expect(reply.body.contacts).toEqual([{ input: unknown, user_id: unknown }]);
    expect(s.accepted().at(-1)).toMatchObject({ waId: '', recipientUserId: unknown, failure: { code: 131026, cause: 'unknownUserId' } });
    expect(s.stats().failedByCode).toEqual({ '131026': 1 });
  });

  it('refuses an authentication template to a user ID with 131062, and takes it to the phone', async () => {
    const { s, userId } = await startWithUser();
    const code = [{ type: 'body', parameters: [text('123456')] }];
    const refused = await send(s, { ...withoutTo(template('login_code', code)), recipient: userId });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({
      code: 131062,
      error_data: {
        details: 'Business-scoped User ID (BSUID) recipients are not supported for this message.',
      },
    });
    expect((await send(s, template('login_code', code, PHONE))).status).toBe(200);
  });

  it('refuses a recipient that cannot be a user ID, and a send with neither to nor recipient, with 100', async () => {
    const { s } = await startWithUser();
    for (const recipient of [12345, '', 'U'.repeat(257), null]) {
      const reply = await send(s, toUser(recipient as string));
      expect(reply.status, String(recipient)).toBe(400);
      expect(reply.body.error?.code, String(recipient)).toBe(100);
    }
    expect((await send(s, withoutTo(orderUpdate()))).body.error).toMatchObject({
      code: 100,
      message: '(#100) The parameter to is required.',
    });
  });
});
