import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { asyncFailure } from '../../src/sandbox/async-failures.js';
import { StatusWebhookSender } from '../../src/sandbox/status-webhooks.js';
import { sandboxUserId } from '../../src/sandbox/user-ids.js';
import { inboundPayload, userPreferencesPayload } from '../../src/sandbox/webhook-payloads.js';
import type { WebhookSink } from '../../src/sandbox/webhook-poster.js';
import { parseWebhook } from '../../src/webhooks/webhook-events.js';

/**
 * Contract of the 2026 webhook shapes with business-scoped user IDs, as Meta's business-scoped
 * user ID page prints them (test/fixtures/meta-pages, SOURCES.md): what the sandbox sends
 * (every pipeline test trusts it), read back by the product's parser.
 *
 * - A status change: `contacts[]` (`wa_id`, `user_id`) at `value.contacts`, beside
 *   `value.statuses`, never inside a status; one contact per recipient of the POST's sent,
 *   delivered and read statuses. A status of a send to a phone: `recipient_id`; sent, delivered
 *   and read add `recipient_user_id` (the June 2026 page; the November 2025 page: only for a
 *   send to a user ID, the sandbox's `recipientUserIds: 'sent-to-user-id'`); `failed` has neither.
 * - A username user's message: `from_user_id` and `contacts[].user_id`, no `from`, no `wa_id`.
 * - `user_preferences`: `user_id` always, `wa_id` unless the user has a username; `value`
 *   stop / resume, `category: marketing_messages`, a numeric `timestamp`.
 */
type Json = Record<string, unknown>;
const BSUID = /^[A-Z]{2}\.[A-Za-z0-9]{1,128}$/;
const NUMBER = '106540352242922';
const WA_ID = '16505551234';

function valueOf(raw: string): { field: string; value: Json } {
  const body = JSON.parse(raw) as { object: string; entry: { changes: { field: string; value: Json }[] }[] };
  expect(body.object).toBe('whatsapp_business_account');
  const change = body.entry[0]?.changes[0];
  if (change === undefined) throw new Error('no change');
  expect(change.value.metadata).toMatchObject({ phone_number_id: NUMBER });
  return change;
}

/** What Meta's page says of one status change: its statuses, and the contacts beside them. */
function changeRule(value: Json, recipientUserIds: 'always' | 'sent-to-user-id'): string[] {
  const problems: string[] = [];
  const statuses = value.statuses as Json[];
  const contacts = (value.contacts ?? []) as Json[];
  for (const item of statuses) {
    if (typeof item.recipient_id !== 'string') problems.push('a send to a phone keeps recipient_id');
    if ('contacts' in item) problems.push('contacts are never inside a status');
    const named = item.recipient_user_id !== undefined;
    if (item.status === 'failed' || recipientUserIds === 'sent-to-user-id') {
      if (named) problems.push(`${String(item.status)} of a send to a phone has no recipient_user_id here`);
    } else if (typeof item.recipient_user_id !== 'string' || !BSUID.test(item.recipient_user_id)) {
      problems.push('recipient_user_id is a BSUID');
    }
    const contact = contacts.find((c) => c.wa_id === item.recipient_id);
    if (item.status !== 'failed' && contact === undefined) problems.push('a contact for each sent, delivered or read recipient');
    if (contact !== undefined && named && contact.user_id !== item.recipient_user_id)
      problems.push('contacts[].user_id is recipient_user_id');
    if (contact !== undefined && !BSUID.test(String(contact.user_id))) problems.push('contacts[].user_id is a BSUID');
  }
  if (new Set(contacts.map((c) => c.wa_id)).size !== contacts.length) problems.push('one contact per recipient');
  return problems;
}

class MemorySink implements WebhookSink {
  readonly posts: string[] = [];
  closed = false;
  post(payload: string): void {
    this.posts.push(payload);
  }
}

describe('2026 webhook shapes: statuses with contacts beside them', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  const accepted = (n: number, failure?: ReturnType<typeof asyncFailure>) => ({
    wamid: `wamid.M${n}`,
    phoneNumberId: NUMBER,
    to: `+${WA_ID}`,
    waId: WA_ID,
    receivedAt: 1_780_000_000_000,
    body: { biz_opaque_callback_data: `c1/${n}` },
    ...(failure === undefined ? {} : { failure }),
  });

  it.each(['always', 'sent-to-user-id'] as const)(
    "the sandbox's sent, delivered, read and failed (recipient_user_id: %s) follow the page, and the parser reads user ID and phone",
    (recipientUserIds) => {
      const sink = new MemorySink();
      const sender = new StatusWebhookSender({ url: 'http://127.0.0.1:9/webhook', appSecret: 's', readShare: 1, recipientUserIds }, sink);
      sender.accepted(accepted(1));
      sender.accepted(accepted(2, asyncFailure(131026, 'recipientErrors')));
      vi.advanceTimersByTime(5000);
      const values = sink.posts.map((raw) => valueOf(raw).value);
      const items = values.flatMap((value) => value.statuses as Json[]);
      expect(items.map((i) => `${String(i.id)} ${String(i.status)}`).sort()).toEqual([
        'wamid.M1 delivered',
        'wamid.M1 read',
        'wamid.M1 sent',
        'wamid.M2 failed',
        'wamid.M2 sent',
      ]);
      for (const value of values) expect(changeRule(value, recipientUserIds)).toEqual([]);
      const statuses = sink.posts.flatMap((raw) => {
        const parsed = parseWebhook(raw);
        return parsed.ok ? parsed.events.statuses : [];
      });
      const userId = sandboxUserId(WA_ID);
      for (const s of statuses) {
        // Matched by wamid and callback data, whatever the recipient fields say.
        expect(s.callbackData).toBe(`c1/${s.wamid.slice(-1)}`);
        expect(s.recipientId).toBe(WA_ID);
        expect(s.userId).toBe(s.kind === 'failed' ? undefined : userId);
      }
    },
  );

  it('the contract refuses what Meta does not send', () => {
    const contact = { wa_id: WA_ID, user_id: 'US.1' };
    expect(changeRule({ statuses: [{ status: 'failed', recipient_id: WA_ID, contacts: [] }] }, 'always')).toEqual([
      'contacts are never inside a status',
    ]);
    expect(changeRule({ statuses: [{ status: 'delivered', recipient_id: WA_ID, recipient_user_id: 'US.1' }] }, 'always')).toEqual([
      'a contact for each sent, delivered or read recipient',
    ]);
    expect(
      changeRule(
        { contacts: [contact], statuses: [{ status: 'read', recipient_id: WA_ID, recipient_user_id: 'US.1' }] },
        'sent-to-user-id',
      ),
    ).toEqual(['read of a send to a phone has no recipient_user_id here']);
    expect(
      changeRule(
        { contacts: [contact, contact], statuses: [{ status: 'sent', recipient_id: WA_ID, recipient_user_id: 'US.2' }] },
        'always',
      ),
    ).toEqual(['contacts[].user_id is recipient_user_id', 'one contact per recipient']);
  });
});

describe('2026 webhook shapes: inbound with user_id only, user_preferences', () => {
  const user = { phoneNumberId: NUMBER, waId: WA_ID, userId: sandboxUserId(WA_ID), name: 'Ana' };

  it("a username user's message: from_user_id and contacts[].user_id, no from, no wa_id; parsed with the user ID alone", () => {
    const raw = inboundPayload({
      ...user,
      usernameUser: true,
      id: 'wamid.IN',
      at: 1_780_000_100_000,
      content: { kind: 'text', body: 'STOP' },
    });
    const { field, value } = valueOf(raw);
    expect(field).toBe('messages');
    const [message] = value.messages as Json[];
    const [contact] = value.contacts as Json[];
    expect(message).not.toHaveProperty('from');
    expect(message?.from_user_id).toMatch(BSUID);
    expect(contact).toEqual({ profile: { name: 'Ana' }, user_id: user.userId });
    const parsed = parseWebhook(raw, (text) => text === 'STOP');
    expect(parsed.ok && parsed.events).toMatchObject({
      inbound: [{ phoneNumberId: NUMBER, userId: user.userId, wamid: 'wamid.IN', optOut: true }],
      malformed: 0,
    });
    expect(parsed.ok && parsed.events.inbound[0]).not.toHaveProperty('waId');
  });

  it('any other user’s message carries both, so the product learns the link from it', () => {
    const raw = inboundPayload({ ...user, id: 'wamid.IN', at: 1_780_000_100_000, content: { kind: 'text', body: 'hi' } });
    const [message] = valueOf(raw).value.messages as Json[];
    expect(message).toMatchObject({ from: WA_ID, from_user_id: user.userId });
    const parsed = parseWebhook(raw);
    expect(parsed.ok && parsed.events.inbound[0]).toMatchObject({ waId: WA_ID, userId: user.userId });
  });

  it.each([false, true])(
    'user_preferences (username user: %s): user_id, wa_id unless a username, value, category, numeric timestamp',
    (usernameUser) => {
      const raw = userPreferencesPayload({ ...user, usernameUser, value: 'stop', at: 1_780_000_200_000 });
      const { field, value } = valueOf(raw);
      expect(field).toBe('user_preferences');
      const [item] = value.user_preferences as Json[];
      expect(item).toMatchObject({ user_id: user.userId, value: 'stop', category: 'marketing_messages', timestamp: 1_780_000_200 });
      expect('wa_id' in (item ?? {})).toBe(!usernameUser);
      const parsed = parseWebhook(raw);
      expect(parsed.ok && parsed.events.preferences).toEqual([
        { phoneNumberId: NUMBER, ...(usernameUser ? {} : { waId: WA_ID }), userId: user.userId, value: 'stop', at: 1_780_000_200_000 },
      ]);
    },
  );

  it("the sandbox's user IDs: ISO country + '.' + 20 digits, the same for a phone every time, different between phones", () => {
    expect(sandboxUserId(WA_ID)).toMatch(/^US\.\d{20}$/);
    expect(sandboxUserId('447700900123')).toMatch(/^GB\.\d{20}$/);
    expect(sandboxUserId(WA_ID)).toBe(sandboxUserId(WA_ID));
    expect(sandboxUserId('16505551235')).not.toBe(sandboxUserId(WA_ID));
  });
});
