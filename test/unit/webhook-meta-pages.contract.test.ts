import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { linksOf } from '../../src/campaigns/settle/user-joins.js';
import { sameLanguage } from '../../src/templates/language-code.js';
import { optOutMatcher, parseWebhook, type WebhookEvents } from '../../src/webhooks/webhook-events.js';

/**
 * Contract of the webhook parser with Meta's own example payloads, byte for byte as Meta's pages
 * print them (test/fixtures/meta-pages, each file's page and date in SOURCES.md; a `.json` that
 * needed a fix to parse lists the fix there). Our sandbox is built from our reference: these
 * files are what keeps the parser honest where the reference and the sandbox could be wrong
 * together.
 */
const PAGE = (file: string): Buffer => readFileSync(new URL(`../fixtures/meta-pages/${file}`, import.meta.url));
const NUMBER = '106540352242922';
const PHONE = '16505551234';
const USER = 'US.13491208655302741918';

function events(file: string): WebhookEvents {
  const parsed = parseWebhook(PAGE(file), optOutMatcher(['STOP']));
  if (!parsed.ok) throw new Error(`${file}: ${parsed.problem}`);
  return parsed.events;
}

describe("the parser on Meta's documented webhooks", () => {
  it("a status of a send to a phone (business-scoped user ID page, 2026): the user ID from the change's contacts[], beside it", () => {
    const { statuses, malformed } = events('bsuid-2026.status-delivered.to-phone.parent-bsuid.json');
    expect(malformed).toBe(0);
    expect(statuses).toEqual([
      expect.objectContaining({ phoneNumberId: NUMBER, kind: 'delivered', at: 1750030073000, recipientId: PHONE, userId: USER }),
    ]);
    expect(statuses[0]?.pricing).toMatchObject({ category: 'marketing', billable: true });
  });

  it('the same status as the page printed it in November 2025 (no recipient_user_id): the user ID comes from contacts[] alone', () => {
    const { statuses } = events('bsuid-2025-11.status-delivered.to-phone.json');
    expect(statuses).toHaveLength(1);
    expect(statuses[0]).toMatchObject({ recipientId: PHONE, userId: expect.stringMatching(/^user\.[0-9a-f]+$/) as unknown });
    // Phone and user ID together teach the portfolio the link a username user's STOP is joined by.
    expect(linksOf(statuses, [], [], [])).toEqual([{ phoneNumberId: NUMBER, userId: statuses[0]?.userId, waId: PHONE, at: 1750030073000 }]);
  });

  it('a status of a send to a user ID, the phone hidden: the user ID, no phone, and no link learnt', () => {
    const { statuses } = events('bsuid-2026.status-delivered.to-bsuid.parent-bsuid.no-phone.json');
    expect(statuses).toEqual([expect.objectContaining({ kind: 'delivered', userId: USER })]);
    expect(statuses[0]?.recipientId).toBeUndefined();
    expect(linksOf(statuses, [], [], [])).toEqual([]);
  });

  it('a failed status (131049) has no contact: its code and details, no user', () => {
    for (const file of ['bsuid-2026.status-failed.to-phone.json', 'status-page.failed-131049.json']) {
      const { statuses } = events(file);
      expect(statuses).toEqual([
        expect.objectContaining({
          kind: 'failed',
          code: '131049',
          recipientId: PHONE,
          detail: 'In order to maintain a healthy ecosystem engagement, the message failed to be delivered.',
        }),
      ]);
      expect(statuses[0]?.userId).toBeUndefined();
    }
  });

  it("the status page's sent example (pricing and, before v24, a conversation) is a status like any other", () => {
    const { statuses, ignored, malformed } = events('status-page.sent-marketing.json');
    expect({ ignored, malformed }).toEqual({ ignored: 0, malformed: 0 });
    expect(statuses).toEqual([
      expect.objectContaining({ kind: 'sent', recipientId: PHONE, pricing: expect.objectContaining({ category: 'marketing' }) as unknown }),
    ]);
  });

  it("a username user's message with no phone: their user ID from from_user_id", () => {
    const { inbound, malformed } = events('bsuid-2026.incoming-text.username-no-phone.parent-bsuid.json');
    expect(malformed).toBe(0);
    expect(inbound).toEqual([expect.objectContaining({ phoneNumberId: NUMBER, userId: USER, optOut: false })]);
    expect(inbound[0]?.waId).toBeUndefined();
  });

  it('value.errors (an account-level 130429) is an account error of the number, not ignored', () => {
    const { accountErrors, ignored, malformed } = events('errors-webhook.rate-limit-130429.json');
    expect({ ignored, malformed }).toEqual({ ignored: 0, malformed: 0 });
    expect(accountErrors).toEqual([
      {
        phoneNumberId: NUMBER,
        code: '130429',
        title: 'Rate limit hit',
        details: 'Message failed to send because there were too many messages sent from this phone number in a short period of time',
        at: expect.any(Number) as unknown,
      },
    ]);
  });

  it('user_preferences resume, with the phone', () => {
    const { preferences } = events('user-preferences.resume.json');
    expect(preferences).toEqual([{ phoneNumberId: NUMBER, waId: PHONE, value: 'resume', at: 1731705721000 }]);
  });

  it('business_capability_update: the new limit for the account of the entry', () => {
    const { limits } = events('business-capability-update.json');
    expect(limits).toEqual([expect.objectContaining({ field: 'business_capability_update', limit: 2000 })]);
  });

  it('template webhooks write the language en-US: it is the en_US translation the campaigns send', () => {
    const status = events('template-status.approved.json').templates;
    expect(status).toEqual([expect.objectContaining({ event: 'APPROVED', name: 'order_confirmation' })]);
    expect(sameLanguage(status[0]?.language ?? '', 'en_US')).toBe(true);
    const quality = events('template-quality.2026-09.json').templateInfo;
    expect(quality).toEqual([expect.objectContaining({ kind: 'quality', name: 'welcome_template', value: 'YELLOW', previous: 'GREEN' })]);
    expect(sameLanguage(quality[0]?.language ?? '', 'en_US')).toBe(true);
    const category = events('template-category.completed.json').templateInfo;
    expect(category).toEqual([expect.objectContaining({ kind: 'category', value: 'MARKETING', previous: 'UTILITY' })]);
  });
});
