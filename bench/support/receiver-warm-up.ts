import { Agent, request } from 'undici';
import { ACCESS_TOKEN, PHONE_NUMBER_ID } from './product.js';

/**
 * The sandbox stands for Meta's servers, which are warm. A sandbox just started runs its request
 * path unoptimised while V8 compiles it, and its young heap collects often: for a second or two it
 * read requests up to 12–51 ms after they reached its port (three starts, stamps against tcpdump,
 * by hand, docs/performance.md), so a sender that held its ceiling on the wire could show a second
 * over it in the sandbox's stamps. The benchmark sends it this many messages before the first
 * measured one, then resets it.
 */
export const RECEIVER_WARM_UP_MESSAGES = 10_000;
const IN_FLIGHT = 32;

/** POSTs `messages` template messages to the sandbox at `url`, then resets it; fails on the first answer other than 200. */
export async function warmUpReceiver(url: string, messages = RECEIVER_WARM_UP_MESSAGES): Promise<void> {
  const agent = new Agent({ connections: IN_FLIGHT, keepAliveTimeout: 30_000 });
  // The versions the product (its default) and the bare worker send as: the sandbox serves each by its own path.
  const endpoints = ['v25.0', 'v23.0'].map((version) => `${url}/${version}/${PHONE_NUMBER_ID}/messages`);
  let next = 0;
  const sendSome = async (): Promise<void> => {
    while (next < messages) {
      const i = next++;
      const response = await request(endpoints[i % endpoints.length] ?? '', {
        method: 'POST',
        dispatcher: agent,
        headers: { authorization: `Bearer ${ACCESS_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify(warmUpMessage(i)),
      });
      const text = await response.body.text();
      if (response.statusCode !== 200) throw new Error(`sandbox warm-up message ${i + 1}: HTTP ${response.statusCode} ${text}`);
    }
  };
  try {
    await Promise.all(Array.from({ length: IN_FLIGHT }, sendSome));
  } finally {
    await agent.close();
  }
  const reset = await request(`${url}/_sandbox/reset`, { method: 'POST' });
  const text = await reset.body.text();
  if (reset.statusCode >= 300) throw new Error(`sandbox reset after its warm-up: HTTP ${reset.statusCode} ${text}`);
}

/** The bench's template message (as bench/bare-worker.ts sends it), each to its own recipient. */
function warmUpMessage(i: number): unknown {
  return {
    messaging_product: 'whatsapp',
    recipient_type: 'individual',
    to: `+4915190${String(100_000 + i)}`,
    type: 'template',
    template: {
      name: 'order_update',
      language: { code: 'en_US' },
      components: [
        {
          type: 'body',
          parameters: [
            { type: 'text', text: 'Ana' },
            { type: 'text', text: `A-${i}` },
          ],
        },
      ],
    },
  };
}
