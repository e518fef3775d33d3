import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/index.js';
import { schemaErrors } from '../support/openapi-schemas.js';
import { PHONE_NUMBER_ID, TOKEN, orderUpdate, postJson, send, startTestSandbox } from './sandbox-helpers.js';

/**
 * Marking a user's message as read, with or without a typing indicator (Meta's "Mark
 * messages as read" and "Typing indicators" pages): `{"success": true}`, 131009 for an ID
 * that is not a message the user sent, and not a send: no throughput, no statuses.
 */
let sandbox: Sandbox | undefined;
let receiver: Server | undefined;
const posts: string[] = [];

afterEach(async () => {
  await sandbox?.close();
  await new Promise<void>((resolve) => (receiver === undefined ? resolve() : receiver.close(() => resolve())));
  sandbox = undefined;
  receiver = undefined;
  posts.length = 0;
});

/** A webhook receiver that keeps every POST's body: the inbound route needs one to post to. */
async function startReceiver(): Promise<string> {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      posts.push(Buffer.concat(chunks).toString('utf8'));
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiver?.listen(0, '127.0.0.1', () => resolve()));
  return `http://127.0.0.1:${(receiver?.address() as AddressInfo).port}/webhook`;
}

async function startWithInbound(
  options: { messagesPerSecond?: number; clock?: () => number } = {},
): Promise<{ s: Sandbox; inboundId: string }> {
  const url = await startReceiver();
  const s = await startTestSandbox({ ...options, webhooks: { url, appSecret: 'secret', sentAfterMs: 1, deliveredAfterMs: 2, batchMs: 1 } });
  sandbox = s;
  const inbound = await postJson<{ id: string }>(`${s.url}/_sandbox/inbound`, { from: '+447700900123', text: 'Hi' });
  expect(inbound.status).toBe(200);
  return { s, inboundId: inbound.body.id };
}

const markRead = (messageId: string, extra: Record<string, unknown> = {}) => ({
  messaging_product: 'whatsapp',
  status: 'read',
  message_id: messageId,
  ...extra,
});

describe('sandbox mark as read (Meta: Mark messages as read, Typing indicators)', () => {
  it("answers {success: true} for a user's message, with or without a typing indicator, in Meta's schema", async () => {
    const { s, inboundId } = await startWithInbound();
    for (const body of [markRead(inboundId), markRead(inboundId, { typing_indicator: { type: 'text' } })]) {
      const reply = await send(s, body);
      expect(reply).toEqual({ status: 200, body: { success: true } });
      expect(schemaErrors('MarkMessageResponsePayload', reply.body)).toEqual([]);
    }
    expect(schemaErrors('MarkMessageRequestPayload', markRead(inboundId))).toEqual([]);
    // Also without a version in the path, as Meta's page marks the version optional.
    const unversioned = await postJson(`${s.url}/${PHONE_NUMBER_ID}/messages?access_token=${TOKEN}`, markRead(inboundId));
    expect(unversioned).toEqual({ status: 200, body: { success: true } });
  });

  it('answers 131009 for an ID that is not a message a user sent: unknown, malformed, or the business own', async () => {
    const { s } = await startWithInbound();
    const sent = await send(s, orderUpdate());
    const ownId = sent.body.messages?.[0]?.id ?? '';
    expect(ownId).toMatch(/^wamid\./);
    for (const id of ['wamid.HBgLMTY1MDM4Nzk0MzkVAgARGBJDQjZCMzlEQUE4OTJBMTE4RTUA', 'not-a-wamid', ownId]) {
      const reply = await send(s, markRead(id));
      expect(reply.status, id).toBe(400);
      expect(reply.body.error, id).toMatchObject({ code: 131009, message: '(#131009) Parameter value is not valid' });
    }
  });

  it('refuses a malformed mark-as-read body with 100: other status, unknown key, bad typing indicator, no message_id', async () => {
    const { s, inboundId } = await startWithInbound();
    const bodies = [
      markRead(inboundId, { status: 'delivered' }),
      markRead(inboundId, { to: '+447700900123' }),
      markRead(inboundId, { typing_indicator: { type: 'audio' } }),
      { messaging_product: 'whatsapp', status: 'read' },
    ];
    for (const body of bodies) {
      const reply = await send(s, body);
      expect(reply.status, JSON.stringify(body)).toBe(400);
      expect(reply.body.error?.code, JSON.stringify(body)).toBe(100);
    }
  });

  it('is not a send: it uses no throughput and is not accepted, so it has no statuses', async () => {
    // A clock that stands still: every request falls in the same second, however slow the machine.
    const at = Date.now();
    const { s, inboundId } = await startWithInbound({ messagesPerSecond: 1, clock: () => at });
    for (let i = 0; i < 3; i++) expect((await send(s, markRead(inboundId))).status).toBe(200);
    // The one send this second is still free: the marks used none of it.
    expect((await send(s, orderUpdate())).status).toBe(200);
    expect(s.accepted()).toHaveLength(1);
    expect(s.stats()).toMatchObject({ accepted: 1, requests: 4, rejectedByCode: {} });
  });
});
