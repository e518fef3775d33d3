import { createHmac } from 'node:crypto';
import { request } from 'undici';

/** How long a receiver has to answer one delivery: a slow one is retried later, never waited on. */
export const DELIVERY_TIMEOUT_MS = 10_000;

/** The answer to one delivery: `ok` for any 2xx; otherwise the status (0 when no answer came) and a short reason. */
export type DeliveryAnswer = { ok: true; status: number } | { ok: false; status: number; reason: string };

/** `sha256=<hex>`: HMAC-SHA256 of the raw body with the secret, as Meta signs its webhooks (X-Hub-Signature-256). */
export function signatureOf(body: Buffer | string, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/**
 * POSTs `body` to `url` with `headers`, reads (and drops) the answer, and never throws: a
 * receiver's failure is data for the caller's retry, not an exception. The answer's body is
 * not kept: it is the receiver's, and may echo what it was sent.
 */
export async function postDelivery(
  url: string,
  body: Buffer | string,
  headers: Record<string, string>,
  timeoutMs: number = DELIVERY_TIMEOUT_MS,
): Promise<DeliveryAnswer> {
  try {
    const answer = await request(url, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', ...headers },
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      signal: AbortSignal.timeout(timeoutMs),
    });
    await answer.body.dump();
    if (answer.statusCode >= 200 && answer.statusCode < 300) return { ok: true, status: answer.statusCode };
    return { ok: false, status: answer.statusCode, reason: `HTTP ${answer.statusCode}` };
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    return { ok: false, status: 0, reason: typeof code === 'string' ? code : error instanceof Error ? error.name : 'no answer' };
  }
}
