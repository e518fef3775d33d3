import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AcceptedMessage, Sandbox } from '../../src/sandbox/index.js';
import {
  PHONE_NUMBER_ID,
  getJson,
  type JsonReply,
  orderUpdate,
  postJson,
  send,
  startTestSandbox,
  template,
  text,
} from './sandbox-helpers.js';

/** The real sandbox server on port 0, driven over HTTP with undici. */
let sandbox: Sandbox;

beforeEach(async () => {
  sandbox = await startTestSandbox();
});
afterEach(async () => {
  await sandbox.close();
});

function expectGraphError(reply: JsonReply, status: number, code: number): void {
  expect(reply.status).toBe(status);
  expect(reply.body.error?.code).toBe(code);
  expect(reply.body.error?.type).toBe('OAuthException');
  expect(reply.body.error?.fbtrace_id).toEqual(expect.any(String));
}

describe('sandbox POST /messages', () => {
  it("accepts a template send with Meta's success shape and records it", async () => {
    const seen = new Promise<AcceptedMessage>((resolve) => sandbox.onAccepted(resolve));
    const reply = await send(sandbox, orderUpdate('+44 7700 900123'));

    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      messaging_product: 'whatsapp',
      contacts: [{ input: '+44 7700 900123', wa_id: '447700900123' }],
      messages: [{ id: expect.stringMatching(/^wamid\.[A-Za-z0-9+/]+={0,2}$/) as unknown, message_status: 'accepted' }],
    });
    const accepted = await seen;
    expect(accepted).toMatchObject({ wamid: reply.body.messages?.[0]?.id, phoneNumberId: PHONE_NUMBER_ID, waId: '447700900123' });
    expect(accepted.body).toEqual(orderUpdate('+44 7700 900123'));
    expect(sandbox.accepted()).toHaveLength(1);
    expect((await getJson(`${sandbox.url}/_sandbox/accepted`, null)).body).toHaveLength(1);
  });

  it('answers 104 for a missing token and 401 / 190 for a wrong or replaced one', async () => {
    const missing = await send(sandbox, orderUpdate(), { token: null });
    expectGraphError(missing, 401, 104);
    expect(missing.body.error).toMatchObject({ message: 'An access token is required to request this resource.' });
    expect(missing.body.error?.error_subcode).toBeUndefined();
    const wrong = await send(sandbox, orderUpdate(), { token: 'wrong' });
    expectGraphError(wrong, 401, 190);
    expect(wrong.body.error).toMatchObject({ error_subcode: 467, message: 'Invalid OAuth access token.' });

    sandbox.setAccessToken('rotated');
    const expired = await send(sandbox, orderUpdate());
    expectGraphError(expired, 401, 190);
    expect(expired.body.error?.error_subcode).toBe(463);
    expect((await send(sandbox, orderUpdate(), { token: 'rotated' })).status).toBe(200);
  });

  it('checks the token before the body', async () => {
    expectGraphError(await send(sandbox, '{not json', { token: 'wrong' }), 401, 190);
    expectGraphError(await send(sandbox, '{not json'), 400, 100);
  });

  it('answers 404 / 132001 for a template missing in that language', async () => {
    const body = orderUpdate();
    (body['template'] as { language: { code: string } }).language.code = 'en_GB';
    const reply = await send(sandbox, body);
    expectGraphError(reply, 404, 132001);
    expect(reply.body.error?.message).toBe('(#132001) Template name does not exist in the translation');
    expect(reply.body.error?.error_data).toEqual({
      messaging_product: 'whatsapp',
      details: 'template name (order_update) does not exist in en_GB',
    });
  });

  it('answers 132015 for a paused and 132016 for a disabled template', async () => {
    const body = [{ type: 'body', parameters: [text('Ana')] }];
    expectGraphError(await send(sandbox, template('winter_clearance', body)), 400, 132015);
    expectGraphError(await send(sandbox, template('legacy_welcome', body)), 400, 132016);
  });

  it('answers 132000 for a parameter count mismatch', async () => {
    const reply = await send(sandbox, template('order_update', [{ type: 'body', parameters: [text('Ana')] }]));
    expectGraphError(reply, 400, 132000);
    expect(reply.body.error?.error_data?.details).toBe('body: expected 2 parameters, got 1');
  });

  it('answers 132012 for a text parameter in an IMAGE header', async () => {
    const reply = await send(
      sandbox,
      template('spring_promo', [
        { type: 'header', parameters: [text('banner')] },
        { type: 'body', parameters: [text('Ana'), text('25%')] },
      ]),
    );
    expectGraphError(reply, 400, 132012);
    const ok = await send(
      sandbox,
      template('spring_promo', [
        { type: 'header', parameters: [{ type: 'image', image: { link: 'https://cdn.example.com/spring.jpg' } }] },
        { type: 'body', parameters: [text('Ana'), text('25%')] },
      ]),
    );
    expect(ok.status).toBe(200);
  });

  it("answers 100 with Meta's details for a parameter with a new line", async () => {
    const reply = await send(sandbox, orderUpdate('+447700900123', 'Ana\nMaria'));
    expectGraphError(reply, 400, 100);
    expect(reply.body.error).toMatchObject({
      message: '(#100) Invalid parameter',
      error_data: { details: 'Param text cannot have new-line/tab characters or more than 4 consecutive spaces' },
    });
  });

  it('accepts a NAMED template with parameter names', async () => {
    const reply = await send(
      sandbox,
      template('appointment_reminder_named', [
        { type: 'body', parameters: [text('12 June', 'appointment_time'), text('Ana', 'first_name')] },
      ]),
    );
    expect(reply.status).toBe(200);
  });

  it('accepts free-form text outside the service window (200 + wamid) and marks it to fail 131047 by webhook, not by a 400', async () => {
    const message = { messaging_product: 'whatsapp', to: '+447700900123', type: 'text', text: { body: 'Hi Ana' } };
    const outside = await send(sandbox, message);
    expect(outside.status).toBe(200);
    expect(outside.body.messages?.[0]?.id).toMatch(/^wamid\./);
    expect(sandbox.accepted()[0]).toMatchObject({ wamid: outside.body.messages?.[0]?.id, failure: { code: 131047, cause: 'window' } });

    sandbox.openServiceWindow('+447700900123');
    const inside = await send(sandbox, message);
    expect(inside.status).toBe(200);
    expect(inside.body.messages?.[0]?.message_status).toBeUndefined();
    expect(sandbox.accepted()[1]?.failure).toBeUndefined();

    sandbox.openServiceWindow('+447700900999', Date.now() - 25 * 60 * 60 * 1000);
    expect((await send(sandbox, { ...message, to: '+447700900999' })).status).toBe(200);
    expect(sandbox.accepted()[2]?.failure?.code).toBe(131047);
    expect(sandbox.stats()).toMatchObject({ accepted: 3, rejectedByCode: {}, failedByCode: { '131047': 2 } });
  });

  it('answers a missing required field with 100 "The parameter … is required." and no error_data', async () => {
    const body = orderUpdate();
    delete (body['template'] as Record<string, unknown>)['language'];
    const reply = await send(sandbox, body);
    expect(reply.status).toBe(400);
    expect(reply.body.error).toEqual({
      message: '(#100) The parameter template.language is required.',
      type: 'OAuthException',
      code: 100,
      fbtrace_id: expect.any(String) as unknown,
    });
  });

  it('refuses a phone-number ID it does not have with 400 / 100, subcode 33, GraphMethodException, after the token check', async () => {
    const reply = await send(sandbox, orderUpdate(), { phoneNumberId: '106540352242999' });
    expect(reply.status).toBe(400);
    expect(reply.body.error).toEqual({
      message: expect.stringMatching(/^Unsupported post request\. Object with ID '106540352242999' does not exist/) as unknown,
      type: 'GraphMethodException',
      code: 100,
      error_subcode: 33,
      fbtrace_id: expect.any(String) as unknown,
    });
    expectGraphError(await send(sandbox, orderUpdate(), { phoneNumberId: '106540352242999', token: 'wrong' }), 401, 190);
    expect(sandbox.accepted()).toHaveLength(0);
    expect(sandbox.phoneNumberIds).toEqual([PHONE_NUMBER_ID]);
  });

  it("answers 400 / 2500 for a path that is not Meta's, and for an API version Meta never had", async () => {
    expectGraphError(await getJson(`${sandbox.url}/v23/123/messages`), 400, 2500);
    for (const version of ['v27.0', 'v99.0', 'v23.1', 'v19.1']) {
      const reply = await send(sandbox, orderUpdate(), { version });
      expectGraphError(reply, 400, 2500);
      expect(reply.body.error?.message).toBe(`Unknown path components: /${version}/${PHONE_NUMBER_ID}/messages`);
      expectGraphError(await getJson(`${sandbox.url}/${version}/102290129340398/message_templates`), 400, 2500);
    }
    // v20.0, v19.0 and v17.0 have expired: Graph serves them as the oldest version still available.
    for (const version of ['v20.0', 'v26.0', 'v19.0', 'v17.0'])
      expect((await send(sandbox, orderUpdate(`+4477009001${version.slice(1, 3)}`), { version })).status).toBe(200);
    expect(sandbox.accepted()).toHaveLength(4);
  });

  it('counts rejections by code and forgets them on reset', async () => {
    await send(sandbox, orderUpdate());
    await send(sandbox, orderUpdate(), { token: 'wrong' });
    expect((await getJson(`${sandbox.url}/_sandbox/stats`, null)).body).toEqual({
      accepted: 1,
      rejectedByCode: { '190': 1 },
      busiestSecond: 1,
      // The wrong-token send is not a request: it never got past the token check.
      requests: 1,
      busiestRequestSecond: 1,
      duplicates: 0,
      failedByCode: {},
      mediaUploads: {},
    });
    expect((await postJson(`${sandbox.url}/_sandbox/reset`, {})).status).toBe(204);
    expect(sandbox.stats()).toEqual({
      accepted: 0,
      rejectedByCode: {},
      busiestSecond: 0,
      requests: 0,
      busiestRequestSecond: 0,
      duplicates: 0,
      failedByCode: {},
      mediaUploads: {},
    });
    expect((await getJson(`${sandbox.url}/_sandbox/healthz`, null)).body).toEqual({ status: 'ok' });
  });
});
