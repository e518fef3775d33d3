import { inspect } from 'node:util';
import { FormData, MockAgent } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CloudApiBadResponseError, CloudApiError, CloudApiTransportError } from '../../../src/cloud-api/cloud-api-errors.js';
import { MediaUploadClient } from '../../../src/cloud-api/media-upload-client.js';
import { Secret } from '../../../src/config/secret.js';
import { mediaBytes } from './media-bytes.js';

const ORIGIN = 'https://graph.test';
const NUMBER = '200000000000002';
const PATH = `/v25.0/${NUMBER}/media`;
const TOKEN = 'EAAGtest-token-that-must-never-leak-0123456789';

let agent: MockAgent;
beforeEach(() => {
  agent = new MockAgent();
  agent.disableNetConnect();
});
afterEach(async () => {
  await agent.close();
});

const client = () =>
  new MediaUploadClient({ baseUrl: ORIGIN, apiVersion: 'v25.0', accessToken: new Secret(TOKEN), timeoutMs: 5_000, dispatcher: agent });
const intercept = () => agent.get(ORIGIN).intercept({ path: PATH, method: 'POST' });

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

function expectNoToken(error: unknown): void {
  expect(String((error as Error).message)).not.toContain(TOKEN);
  expect(inspect(error, { depth: Infinity })).not.toContain(TOKEN);
}

describe('MediaUploadClient.uploadMedia', () => {
  it("posts the multipart form of Meta's media page with the token in the header, and answers the media ID", async () => {
    let seen: { headers: unknown; body: unknown } | undefined;
    intercept().reply((options) => {
      seen = { headers: options.headers, body: options.body };
      return { statusCode: 200, data: { id: '1037543291543636' } };
    });
    expect(await client().uploadMedia(NUMBER, mediaBytes.png(), 'image/png', 'banner.png')).toBe('1037543291543636');
    const headers = seen?.headers as Record<string, string>;
    expect(headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(headers['user-agent']).toMatch(/^campaign-worker\//);
    const form = seen?.body as FormData;
    expect(form).toBeInstanceOf(FormData);
    expect(form.get('messaging_product')).toBe('whatsapp');
    expect(form.get('type')).toBe('image/png');
    const file = form.get('file') as File;
    expect({ name: file.name, type: file.type, size: file.size }).toEqual({ name: 'banner.png', type: 'image/png', size: 64 });
  });

  it('a Graph error becomes a CloudApiError keyed on its code (131053: the file refused), without the token', async () => {
    intercept().reply(400, {
      error: {
        message: '(#131053) Media upload error',
        type: 'OAuthException',
        code: 131053,
        error_data: { messaging_product: 'whatsapp', details: 'Param file is empty' },
        fbtrace_id: 'AbC',
      },
    });
    const error = await failure(client().uploadMedia(NUMBER, mediaBytes.png(), 'image/png', 'x.png'));
    expect(error).toBeInstanceOf(CloudApiError);
    expect(error).toMatchObject({ code: 'CLOUD_API_ERROR', httpStatus: 400, metaCode: 131053, details: 'Param file is empty' });
    expect((error as Error).message).toBe(`Cloud API refused the media upload on number ${NUMBER} (code 131053): Param file is empty`);
    expectNoToken(error);
  });

  it('an expired token (190) is a CloudApiError for the caller to act on', async () => {
    intercept().reply(401, { error: { message: 'Error validating access token', type: 'OAuthException', code: 190, fbtrace_id: 'x' } });
    expect(await failure(client().uploadMedia(NUMBER, mediaBytes.png(), 'image/png', 'x.png'))).toMatchObject({
      metaCode: 190,
      httpStatus: 401,
    });
  });

  it('a 2xx without a numeric id is CLOUD_API_BAD_RESPONSE', async () => {
    intercept().reply(200, { success: true });
    expect(await failure(client().uploadMedia(NUMBER, mediaBytes.png(), 'image/png', 'x.png'))).toBeInstanceOf(CloudApiBadResponseError);
  });

  it('no answer is a CloudApiTransportError saying what was being done', async () => {
    intercept().replyWithError(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
    const error = await failure(client().uploadMedia(NUMBER, mediaBytes.png(), 'image/png', 'x.png'));
    expect(error).toBeInstanceOf(CloudApiTransportError);
    expect((error as Error).message).toBe(`No answer from the Cloud API uploading media on number ${NUMBER} (connect)`);
    expectNoToken(error);
  });
});
