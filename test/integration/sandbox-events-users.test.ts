import { afterEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/index.js';
import { sandboxUserId } from '../../src/sandbox/user-ids.js';
import { PHONE_NUMBER_ID, orderUpdate, postJson, send, startTestSandbox, template, text } from './sandbox-helpers.js';
import { FAST, SECRET, changesOf, startReceiver, statusesOf, type Receiver } from './sandbox-events-receiver.js';

/**
 * What users do that Meta reports and the sandbox could not play before: get a new
 * business-scoped user ID (the `user_changed_user_id` system message, Meta's
 * webhooks/reference/messages/system), and subscribe through an In-App Signup link
 * (`user_preferences` with `value: "signup"` and its `signup_id`), which lifts a stop.
 */
describe('sandbox events: user ID changes and signups', () => {
  let sandbox: Sandbox | undefined;
  let receiver: Receiver | undefined;

  afterEach(async () => {
    await sandbox?.close();
    await receiver?.close();
    sandbox = undefined;
    receiver = undefined;
  });

  const control = <T>(path: string, body: unknown) => postJson<T & { error?: string }>(`${sandbox?.url ?? ''}/_sandbox/${path}`, body);
  /** The `messages` change values that carry this status's wamid. */
  const changesWith = (r: Receiver, wamid: string) =>
    changesOf(r.posts, 'messages').filter((c) => ((c.value['statuses'] ?? []) as { id: string }[]).some((s) => s.id === wamid));

  it('POST /_sandbox/user-id-change issues a new ID, posts user_changed_user_id, and later webhooks carry the new ID', async () => {
    const r = (receiver = await startReceiver());
    sandbox = await startTestSandbox({ messagesPerSecond: 0, webhooks: { url: r.url, appSecret: SECRET, ...FAST } });
    const phone = '447700900831';
    const before = (await send(sandbox, orderUpdate(`+${phone}`))).body.messages?.[0]?.id ?? '';
    await r.until('the first send delivered', () => statusesOf(r.posts).some((s) => s.id === before && s.status === 'delivered'));
    const original = sandboxUserId(phone);
    expect(JSON.stringify(changesWith(r, before))).toContain(original);

    const changed = await control<{ id: string; wa_id: string; previous_user_id: string; user_id: string }>('user-id-change', {
      from: `+${phone}`,
      name: 'Ana',
    });
    expect(changed.status).toBe(200);
    const { id, previous_user_id: previous, user_id: current } = changed.body;
    expect(changed.body.wa_id).toBe(phone);
    expect(previous).toBe(original);
    expect(current).toMatch(/^GB\.\d{20}$/);
    expect(current).not.toBe(original);
    expect(sandboxUserId(phone)).toBe(current);

    await r.until('the system message', () =>
      changesOf(r.posts, 'messages').some((c) => JSON.stringify(c.value).includes('user_changed_user_id')),
    );
    const system = changesOf(r.posts, 'messages').find((c) => JSON.stringify(c.value).includes('user_changed_user_id'));
    // Meta's shape: no contacts (no system message has them) and no phone (this one never names it).
    expect(system?.value).toEqual({
      messaging_product: 'whatsapp',
      metadata: { display_phone_number: expect.stringMatching(/^\d+$/) as unknown, phone_number_id: PHONE_NUMBER_ID },
      messages: [
        {
          id,
          timestamp: expect.stringMatching(/^\d+$/) as unknown,
          type: 'system',
          system: {
            body: `User Ana changed from ${previous} to ${current}`,
            user_id: current,
            previous_user_id: previous,
            type: 'user_changed_user_id',
          },
        },
      ],
    });
    expect(id).toMatch(/^wamid\./);

    // From now on the user is known by the new ID: in the statuses of a send and in what they write.
    const after = (await send(sandbox, orderUpdate(`+${phone}`))).body.messages?.[0]?.id ?? '';
    const inbound = await control<{ id: string; user_id: string }>('inbound', { from: `+${phone}`, text: 'New phone, same me' });
    expect(inbound.body.user_id).toBe(current);
    await r.until('the second send delivered and the inbound message', () => {
      const delivered = statusesOf(r.posts).some((s) => s.id === after && s.status === 'delivered');
      return delivered && r.posts.some((p) => JSON.stringify(p.body).includes(inbound.body.id));
    });
    expect(r.posts.every((p) => p.signedOk)).toBe(true);
    const afterChange = JSON.stringify(changesWith(r, after));
    expect(afterChange).toContain(current);
    expect(afterChange).not.toContain(previous);
    const message = changesOf(r.posts, 'messages').find((c) => JSON.stringify(c.value).includes(inbound.body.id))?.value;
    expect(message?.['messages']).toEqual([expect.objectContaining({ from: phone, from_user_id: current })]);
    expect(message?.['contacts']).toEqual([expect.objectContaining({ wa_id: phone, user_id: current })]);

    // Each change issues another ID.
    const again = await control<{ previous_user_id: string; user_id: string }>('user-id-change', { from: phone });
    expect(again.body.previous_user_id).toBe(current);
    expect([original, current]).not.toContain(again.body.user_id);
  });

  it('POST /_sandbox/user-id-change refuses a bad body (400) and, with no webhook URL, changes nothing (409)', async () => {
    const r = (receiver = await startReceiver());
    sandbox = await startTestSandbox({ webhooks: { url: r.url, appSecret: SECRET, ...FAST } });
    expect((await control('user-id-change', { from: 'nobody' })).status).toBe(400);
    expect((await control('user-id-change', { from: '+447700900832', to: 'x' })).status).toBe(400);
    expect((await control('user-id-change', { from: '+447700900832', phoneNumberId: '999' })).body.error).toMatch(
      /not one of the sandbox's numbers/,
    );
    await sandbox.close();
    sandbox = await startTestSandbox();
    const before = sandboxUserId('447700900832');
    const none = await control('user-id-change', { from: '+447700900832' });
    expect(none.status).toBe(409);
    expect(none.body.error).toMatch(/No webhook URL is configured/);
    expect(sandboxUserId('447700900832')).toBe(before);
    expect(r.posts).toHaveLength(0);
  });

  it('POST /_sandbox/user-preferences with value signup posts it with its signup_id and lifts a marketing stop', async () => {
    const r = (receiver = await startReceiver());
    const phone = '447700900841';
    sandbox = await startTestSandbox({
      messagesPerSecond: 0,
      webhooks: { url: r.url, appSecret: SECRET, ...FAST },
      faults: { optedOut: [phone] },
    });
    const promo = () =>
      template(
        'spring_promo',
        [
          { type: 'header', parameters: [{ type: 'image', image: { link: 'https://cdn.example.com/spring.jpg' } }] },
          { type: 'body', parameters: [text('Ana'), text('25%')] },
        ],
        `+${phone}`,
      );
    const stopped = (await send(sandbox, promo())).body.messages?.[0]?.id ?? '';

    const signup = await control<{ wa_id: string; user_id: string; value: string; signup_id: string }>('user-preferences', {
      from: `+${phone}`,
      value: 'signup',
    });
    expect(signup.status).toBe(200);
    expect(signup.body).toEqual({ wa_id: phone, user_id: sandboxUserId(phone), value: 'signup', signup_id: '100000000000301' });
    const named = await control<{ signup_id: string }>('user-preferences', {
      from: '+447700900842',
      value: 'signup',
      signupId: '123456789',
    });
    expect(named.body.signup_id).toBe('123456789');
    const resumed = (await send(sandbox, promo())).body.messages?.[0]?.id ?? '';

    await r.until('both signups and a final status for both sends', (posts) => {
      const final = (wamid: string) => statusesOf(posts).some((s) => s.id === wamid && s.status !== 'sent');
      return changesOf(posts, 'user_preferences').length >= 2 && final(stopped) && final(resumed);
    });
    expect(r.posts.every((p) => p.signedOk)).toBe(true);
    const preferences = changesOf(r.posts, 'user_preferences').map((c) => c.value);
    expect(preferences[0]).toEqual({
      messaging_product: 'whatsapp',
      metadata: { display_phone_number: expect.stringMatching(/^\d+$/) as unknown, phone_number_id: PHONE_NUMBER_ID },
      contacts: [{ profile: { name: 'Sandbox user' }, wa_id: phone, user_id: sandboxUserId(phone) }],
      user_preferences: [
        {
          wa_id: phone,
          user_id: sandboxUserId(phone),
          detail: expect.any(String) as unknown,
          category: 'marketing_messages',
          value: 'signup',
          signup_id: '100000000000301',
          timestamp: expect.any(Number) as unknown,
        },
      ],
    });
    expect(JSON.stringify(preferences[1])).toContain('"signup_id":"123456789"');
    // The stop held for the first marketing send; the signup lifted it for the second.
    const final = (wamid: string) => statusesOf(r.posts).find((s) => s.id === wamid && s.status !== 'sent');
    expect(final(stopped)).toMatchObject({ status: 'failed', errors: [expect.objectContaining({ code: 131050 })] });
    expect(final(resumed)?.status).toBe('delivered');

    expect((await control('user-preferences', { from: `+${phone}`, value: 'stop', signupId: '1' })).body.error).toMatch(
      /signupId goes with value "signup" only/,
    );
    expect((await control('user-preferences', { from: `+${phone}`, value: 'signup', signupId: 'abc' })).status).toBe(400);
  });
});
