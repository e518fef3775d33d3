import { describe, expect, it } from 'vitest';
import { FLOW_RESPONSE_MAX_BYTES, boundedFlowResponse } from '../../src/webhooks/flow-response.js';
import { parseWebhook } from '../../src/webhooks/webhook-events.js';

/**
 * A WhatsApp Flow's answer in a `messages` webhook (src/webhooks/flow-response.ts): read from an
 * `interactive` `nfm_reply` message with the context of the template that opened the Flow, and
 * bounded as a campaign row keeps it.
 */

/** The message of Meta's flows/guides/receiveflowresponse page, with its placeholders filled. */
function flowAnswer(responseJson: unknown, nfmReply: Record<string, unknown> = {}) {
  return {
    context: { from: '16315558151', id: 'wamid.TEMPLATE1' },
    from: '4915100000001',
    id: 'wamid.IN1',
    type: 'interactive',
    interactive: { type: 'nfm_reply', nfm_reply: { name: 'flow', body: 'Sent', response_json: responseJson, ...nfmReply } },
    timestamp: '1790000000',
  };
}

function inboundOf(...messages: unknown[]) {
  const raw = JSON.stringify({
    object: 'whatsapp_business_account',
    entry: [
      {
        id: '1',
        changes: [{ field: 'messages', value: { messaging_product: 'whatsapp', metadata: { phone_number_id: '111' }, messages } }],
      },
    ],
  });
  const parsed = parseWebhook(raw);
  if (!parsed.ok) throw new Error(parsed.problem);
  return parsed.events.inbound;
}

describe('a Flow’s answer in a messages webhook', () => {
  it('is read with the message it answers (context.id), its response_json as Meta sent it', () => {
    const json = '{"flow_token": "unused", "size": "M", "note": "=HYPERLINK(\\"http://evil\\")"}';
    expect(inboundOf(flowAnswer(json))).toEqual([
      {
        phoneNumberId: '111',
        waId: '4915100000001',
        wamid: 'wamid.IN1',
        at: 1790000000000,
        replyTo: 'wamid.TEMPLATE1',
        flowResponse: json,
        optOut: false,
      },
    ]);
  });

  it('records no answer for an nfm_reply without a response_json string, nor for a button or list reply', () => {
    const [missing, empty, number, button] = inboundOf(flowAnswer(undefined), flowAnswer(''), flowAnswer(42), {
      ...flowAnswer(''),
      interactive: { type: 'button_reply', button_reply: { id: 'YES', title: 'Yes' } },
    });
    for (const message of [missing, empty, number]) {
      expect(message?.flowResponse).toBeUndefined();
      // Still a message from the user: it opens their window as any other does.
      expect(message?.replyTo).toBe('wamid.TEMPLATE1');
    }
    expect(button).toMatchObject({ reply: 'YES' });
    expect(button?.flowResponse).toBeUndefined();
  });
});

describe('boundedFlowResponse', () => {
  const bytes = (text: string) => Buffer.byteLength(text, 'utf8');

  it('keeps an answer up to 4 KB as it came, whitespace and all, JSON object or not', () => {
    const spaced = `{ "flow_token": "unused", "comment": "${'x'.repeat(FLOW_RESPONSE_MAX_BYTES - 50)}" }`;
    expect(bytes(spaced)).toBeLessThanOrEqual(FLOW_RESPONSE_MAX_BYTES);
    expect(boundedFlowResponse(spaced)).toBe(spaced);
    expect(boundedFlowResponse('=HYPERLINK("http://evil")')).toBe('=HYPERLINK("http://evil")');
  });

  it('keeps a longer JSON object without the whitespace between its tokens, strings and numbers exactly as written', () => {
    const fields = Array.from({ length: 150 }, (_, i) => `  "field_${i}" :  "a b\\" ${i}"`).join(',\n');
    const json = `{\n  "id": 12345678901234567890,\n${fields}\n}`;
    expect(bytes(json)).toBeGreaterThan(FLOW_RESPONSE_MAX_BYTES);
    const kept = boundedFlowResponse(json);
    expect(bytes(kept)).toBeLessThanOrEqual(FLOW_RESPONSE_MAX_BYTES);
    expect(kept.startsWith('{"id":12345678901234567890,"field_0":"a b\\" 0","field_1"')).toBe(true);
    expect(JSON.parse(kept)).toEqual(JSON.parse(json));
  });

  it('cuts what is still too long at 4 KB, never inside a character', () => {
    const json = JSON.stringify({ flow_token: 'unused', comment: 'é'.repeat(FLOW_RESPONSE_MAX_BYTES) });
    const kept = boundedFlowResponse(json);
    expect(bytes(kept)).toBeLessThanOrEqual(FLOW_RESPONSE_MAX_BYTES);
    expect(bytes(kept)).toBeGreaterThan(FLOW_RESPONSE_MAX_BYTES - 2);
    expect(json.startsWith(kept)).toBe(true);
    expect(kept).not.toContain('\uFFFD');
    const notJson = `=${'€'.repeat(2000)}`;
    expect(notJson.startsWith(boundedFlowResponse(notJson))).toBe(true);
    expect(bytes(boundedFlowResponse(notJson))).toBeLessThanOrEqual(FLOW_RESPONSE_MAX_BYTES);
  });
});
