import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/index.js';
import { parseWebhook } from '../../src/webhooks/webhook-events.js';
import { strictSchemaErrors } from '../support/openapi-schemas.js';
import { waitFor } from '../support/waiting.js';
import { postJson, startTestSandbox } from './sandbox-helpers.js';

/**
 * POST /_sandbox/inbound plays a user's reply to a template message: a quick-reply tap
 * (`button`) or the answer of a WhatsApp Flow the template opened (`flow`), each posted as the
 * signed `messages` webhook Meta sends (webhook.inbound-button.json; flows/guides/receiveflowresponse),
 * valid against Meta's OpenAPI, and read back by our parser as a reply to that template.
 */
const SECRET = 'sandbox-flow-secret';
const TEMPLATE_WAMID = 'wamid.TEMPLATE1';

interface Posted {
  body: { entry: { changes: { value: { messages?: Record<string, unknown>[] } }[] }[] };
  raw: Buffer;
  signedOk: boolean;
}

describe('the sandbox plays quick-reply taps and Flow answers', () => {
  let sandbox: Sandbox | undefined;
  let receiver: Server | undefined;

  afterEach(async () => {
    await sandbox?.close();
    await new Promise<void>((resolve) => (receiver === undefined ? resolve() : receiver.close(() => resolve())));
    sandbox = undefined;
    receiver = undefined;
  });

  /** A webhook receiver that keeps every POST; its URL. */
  async function receive(posts: Posted[]): Promise<string> {
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks);
        const signedOk = req.headers['x-hub-signature-256'] === `sha256=${createHmac('sha256', SECRET).update(raw).digest('hex')}`;
        posts.push({ body: JSON.parse(raw.toString('utf8')) as Posted['body'], raw, signedOk });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => receiver?.listen(0, '127.0.0.1', () => resolve()));
    return `http://127.0.0.1:${(receiver?.address() as AddressInfo).port}/webhook`;
  }

  const inbound = (body: unknown) => postJson<{ id: string; error?: string }>(`${sandbox?.url ?? ''}/_sandbox/inbound`, body);

  it("posts a Flow's answer as Meta's nfm_reply message, and a tap as Meta's button message, both replies to the template", async () => {
    const posts: Posted[] = [];
    sandbox = await startTestSandbox({ webhooks: { url: await receive(posts), appSecret: SECRET, batchMs: 10 } });
    const responseJson = '{"flow_token": "unused", "size": "M", "note": "=HYPERLINK(\\"http://evil\\")"}';
    const flow = await inbound({ from: '+447700900123', flow: { responseJson }, contextId: TEMPLATE_WAMID });
    const tap = await inbound({ from: '+447700900124', button: { payload: 'MORE', text: 'More offers' }, contextId: TEMPLATE_WAMID });
    expect([flow.status, tap.status]).toEqual([200, 200]);
    await waitFor(() => posts.length, { what: 'both messages posted', until: (n) => n >= 2 });

    const messageOf = (id: string) => posts.map((p) => p.body.entry[0]?.changes[0]?.value.messages?.[0]).find((m) => m?.id === id);
    expect(messageOf(flow.body.id)).toEqual({
      from: '447700900123',
      from_user_id: expect.any(String) as unknown,
      id: flow.body.id,
      timestamp: expect.stringMatching(/^\d+$/) as unknown,
      type: 'interactive',
      context: { from: expect.any(String) as unknown, id: TEMPLATE_WAMID },
      interactive: { type: 'nfm_reply', nfm_reply: { name: 'flow', body: 'Sent', response_json: responseJson } },
    });
    expect(messageOf(tap.body.id)).toMatchObject({
      type: 'button',
      context: { id: TEMPLATE_WAMID },
      button: { payload: 'MORE', text: 'More offers' },
    });
    for (const post of posts) {
      expect(post.signedOk).toBe(true);
      expect(strictSchemaErrors('WebhookPayload', post.body)).toEqual([]);
    }

    const read = posts.flatMap((post) => {
      const parsed = parseWebhook(post.raw);
      return parsed.ok ? parsed.events.inbound : [];
    });
    expect(read.find((m) => m.wamid === flow.body.id)).toMatchObject({ replyTo: TEMPLATE_WAMID, flowResponse: responseJson });
    expect(read.find((m) => m.wamid === tap.body.id)).toMatchObject({ replyTo: TEMPLATE_WAMID, reply: 'MORE' });
  });

  it("refuses a Flow's answer that is not a JSON object, replies to nothing, or comes with a tap, saying why", async () => {
    const posts: Posted[] = [];
    sandbox = await startTestSandbox({ webhooks: { url: await receive(posts), appSecret: SECRET } });
    const cases: [unknown, RegExp][] = [
      [{ from: '+447700900123', flow: { responseJson: '{"flow_token":"unused"}' } }, /contextId/],
      [{ from: '+447700900123', flow: { responseJson: 'not json' }, contextId: TEMPLATE_WAMID }, /responseJson must be a JSON object/],
      [{ from: '+447700900123', flow: { responseJson: '["a"]' }, contextId: TEMPLATE_WAMID }, /responseJson must be a JSON object/],
      [
        { from: '+447700900123', flow: { responseJson: '{}' }, button: { payload: 'P', text: 'T' }, contextId: TEMPLATE_WAMID },
        /not two or none/,
      ],
      [{ from: '+447700900123', flow: { response_json: '{}' }, contextId: TEMPLATE_WAMID }, /response_json/],
    ];
    for (const [body, why] of cases) {
      const reply = await inbound(body);
      expect(reply.status, JSON.stringify(body)).toBe(400);
      expect(reply.body.error, JSON.stringify(body)).toMatch(why);
    }
    expect(posts).toHaveLength(0);
  });
});
