import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/index.js';
import { schemaErrors } from '../support/openapi-schemas.js';
import { PHONE_NUMBER_ID, TOKEN, send, startTestSandbox } from './sandbox-helpers.js';

/**
 * Image, video, document and audio messages as Meta's pages for each describe them: a link or
 * an uploaded media ID, a caption (not on audio), a filename on a document, `voice` on audio.
 * Like a text, they are free-form: outside the user's service window Meta accepts them and
 * reports them `failed` 131047 by webhook.
 */
let sandbox: Sandbox | undefined;

afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

const TO = '+447700900123';

const media = (type: string, content: Record<string, unknown>, to = TO) => ({
  messaging_product: 'whatsapp',
  recipient_type: 'individual',
  to,
  type,
  [type]: content,
});

const LINK = 'https://cdn.example.com/asset';

const EXAMPLES: [string, Record<string, unknown>][] = [
  ['image', { link: `${LINK}.png`, caption: 'The best succulent ever?' }],
  ['video', { link: `${LINK}.mp4`, caption: 'A succulent eclipse!' }],
  ['document', { link: `${LINK}.pdf`, filename: 'invoice.pdf', caption: 'Your invoice' }],
  ['audio', { link: `${LINK}.ogg`, voice: true }],
];

describe("sandbox media messages (Meta's image, video, document and audio message pages)", () => {
  it('accepts each type inside the service window, answered as a text is (no message_status)', async () => {
    sandbox = await startTestSandbox();
    sandbox.openServiceWindow(TO);
    for (const [type, content] of EXAMPLES) {
      const body = media(type, content);
      // The media object is Meta's OpenAPI MediaObject (caption, filename and voice come from Meta's pages).
      const core = Object.fromEntries(Object.entries(content).filter(([key]) => key === 'link' || key === 'id'));
      expect(schemaErrors('MediaObject', core), type).toEqual([]);
      const reply = await send(sandbox, body);
      expect(reply.status, type).toBe(200);
      expect(reply.body.contacts).toEqual([{ input: TO, wa_id: '447700900123' }]);
      expect(reply.body.messages?.[0]).toEqual({ id: expect.stringMatching(/^wamid\./) as string });
    }
    expect(sandbox.accepted().map((m) => m.failure)).toEqual([undefined, undefined, undefined, undefined]);
  });

  it('accepts them outside the window and reports them failed 131047 by webhook, as Meta does with a text', async () => {
    sandbox = await startTestSandbox();
    for (const [type, content] of EXAMPLES) expect((await send(sandbox, media(type, content))).status, type).toBe(200);
    expect(sandbox.accepted().map((m) => m.failure?.code)).toEqual([131047, 131047, 131047, 131047]);
    expect(sandbox.stats().failedByCode).toEqual({ '131047': 4 });
  });

  it('refuses with 100 what the pages do not allow: link and id, no media, a long caption, a caption on audio, a bad voice', async () => {
    sandbox = await startTestSandbox();
    const refused = [
      media('image', { link: `${LINK}.png`, id: '1234' }),
      media('image', {}),
      media('image', { link: 'ftp://cdn.example.com/a.png' }),
      media('video', { link: `${LINK}.mp4`, caption: 'x'.repeat(1025) }),
      media('audio', { link: `${LINK}.ogg`, caption: 'Hi' }),
      media('audio', { link: `${LINK}.ogg`, voice: 'yes' }),
      media('image', { link: `${LINK}.png`, filename: 'a.png' }),
      { ...media('image', { link: `${LINK}.png` }), text: { body: 'Hi' } },
    ];
    for (const body of refused) {
      const reply = await send(sandbox, body);
      expect(reply.status, JSON.stringify(body)).toBe(400);
      expect(reply.body.error?.code, JSON.stringify(body)).toBe(100);
    }
    // A caption of exactly 1024 characters is Meta's maximum, and fine.
    sandbox.openServiceWindow(TO);
    expect((await send(sandbox, media('image', { link: `${LINK}.png`, caption: 'x'.repeat(1024) }))).status).toBe(200);
    // Stickers are not simulated.
    expect((await send(sandbox, media('sticker', { link: `${LINK}.webp` }))).body.error?.code).toBe(131051);
  });

  it('refuses a media message on the Marketing Messages API, which sends marketing templates only', async () => {
    sandbox = await startTestSandbox();
    const response = await request(`${sandbox.url}/v25.0/${PHONE_NUMBER_ID}/marketing_messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify(media('image', { link: `${LINK}.png` })),
    });
    const body = (await response.body.json()) as { error?: { code: number; error_data?: { details: string } } };
    expect(response.statusCode).toBe(400);
    expect(body.error?.code).toBe(134100);
    expect(body.error?.error_data?.details).toMatch(/not a message of type image/);
  });
});
