import { createHmac } from 'node:crypto';

/**
 * POSTs `body` to `<serviceUrl>/webhook` as Meta does: `X-Hub-Signature-256` is the HMAC-SHA256
 * of the exact bytes under the app secret. The answer's HTTP status.
 */
export async function postSignedWebhook(serviceUrl: string, appSecret: string, body: string | Buffer): Promise<number> {
  const signature = `sha256=${createHmac('sha256', appSecret).update(body).digest('hex')}`;
  const response = await fetch(`${serviceUrl}/webhook`, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature },
  });
  return response.status;
}
