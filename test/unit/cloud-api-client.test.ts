import { readFileSync } from 'node:fs';
import { inspect } from 'node:util';
import { MockAgent, errors as undiciErrors, type Dispatcher } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CloudApiClient } from '../../src/cloud-api/cloud-api-client.js';
import { CloudApiBadResponseError, CloudApiError, CloudApiTransportError } from '../../src/cloud-api/cloud-api-errors.js';
import type { OutboundMessage } from '../../src/cloud-api/outbound-message.js';
import { Secret } from '../../src/config/secret.js';
import { AppError } from '../../src/errors/app-error.js';

const ORIGIN = 'https://graph.test';
const PHONE_NUMBER_ID = '200000000000002';
const PATH = `/v23.0/${PHONE_NUMBER_ID}/messages`;
const TOKEN = 'EAAGtest-token-that-must-never-leak-0123456789';

function example(name: string): object {
  const url = new URL(`../fixtures/reference/examples/${name}`, import.meta.url);
  return JSON.parse(readFileSync(url, 'utf8')) as object;
}

const message: OutboundMessage = {
  kind: 'template',
  to: '+5511987654321',
  name: 'order_ready_named',
  language: 'pt_BR',
  header: { type: 'image', link: 'https://cdn.example.com/banner.jpg' },
  body: [
    { name: 'first_name', text: 'João' },
    { name: 'order_id', text: 'A-99812' },
  ],
};

let agent: MockAgent;

beforeEach(() => {
  agent = new MockAgent();
  agent.disableNetConnect();
});

afterEach(async () => {
  await agent.close();
});

function client(options: { timeoutMs?: number; dispatcher?: Dispatcher } = {}): CloudApiClient {
  return new CloudApiClient({
    baseUrl: ORIGIN,
    apiVersion: 'v23.0',
    accessToken: new Secret(TOKEN),
    timeoutMs: options.timeoutMs ?? 5_000,
    dispatcher: options.dispatcher ?? agent,
  });
}

function intercept(): ReturnType<ReturnType<MockAgent['get']>['intercept']> {
  return agent.get(ORIGIN).intercept({ path: PATH, method: 'POST' });
}

/** Runs `promise`, which must reject, and returns what it rejected with. */
async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the send to fail, it succeeded');
}

async function sendFailure(setup: () => void): Promise<unknown> {
  setup();
  const error = await failure(client().send(PHONE_NUMBER_ID, message));
  agent.assertNoPendingInterceptors();
  return error;
}

describe('CloudApiClient.send: success', () => {
  it('returns wamid, waId, input and messageStatus from the documented response', async () => {
    intercept().reply(200, example('send.response.json'), { headers: { 'content-type': 'application/json' } });

    const result = await client().send(PHONE_NUMBER_ID, message);

    expect(result).toEqual({
      wamid: 'wamid.SIMULATED000000000000000001',
      waId: '447700900123',
      input: '+447700900123',
      messageStatus: 'accepted',
    });
    agent.assertNoPendingInterceptors();
  });

  it('sends POST /v23.0/<id>/messages with the bearer token, JSON content type and the exact body', async () => {
    let seen: { method: string; path: string; headers: Record<string, string>; body: string } | undefined;
    intercept().reply((options) => {
      seen = {
        method: options.method,
        path: options.path,
        headers: options.headers as Record<string, string>,
        body: typeof options.body === 'string' ? options.body : '<not a string>',
      };
      return { statusCode: 200, data: example('send.response.json') };
    });

    await client().send(PHONE_NUMBER_ID, message);

    expect(seen).toBeDefined();
    expect(seen?.method).toBe('POST');
    expect(seen?.path).toBe(PATH);
    expect(seen?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(seen?.headers['content-type']).toBe('application/json');
    // The exact body of reference examples/send-template-named.request.json.
    expect(JSON.parse(seen?.body ?? 'null')).toEqual(example('send-template-named.request.json'));
  });

  it('posts a marketing-messages template to /<id>/marketing_messages with the same body as /messages', async () => {
    let seen: { path: string; body: string } | undefined;
    agent
      .get(ORIGIN)
      .intercept({ path: `/v23.0/${PHONE_NUMBER_ID}/marketing_messages`, method: 'POST' })
      .reply((options) => {
        seen = { path: options.path, body: typeof options.body === 'string' ? options.body : '<not a string>' };
        return { statusCode: 200, data: example('send.response.json') };
      });

    const result = await client().send(PHONE_NUMBER_ID, { ...message, endpoint: 'marketing-messages' });

    expect(result.wamid).toBe('wamid.SIMULATED000000000000000001');
    expect(seen?.path).toBe(`/v23.0/${PHONE_NUMBER_ID}/marketing_messages`);
    expect(JSON.parse(seen?.body ?? 'null')).toEqual(example('send-template-named.request.json'));
    agent.assertNoPendingInterceptors();
  });

  it('treats an absent message_status as accepted (reference §1.5)', async () => {
    intercept().reply(200, {
      messaging_product: 'whatsapp',
      contacts: [{ input: '+5511987654321', wa_id: '5511987654321' }],
      messages: [{ id: 'wamid.NOSTATUS' }],
    });

    const result = await client().send(PHONE_NUMBER_ID, message);

    expect(result.messageStatus).toBe('accepted');
    expect(result.wamid).toBe('wamid.NOSTATUS');
  });

  it('passes held_for_quality_assessment through', async () => {
    intercept().reply(200, {
      messaging_product: 'whatsapp',
      contacts: [{ input: '+5511987654321', wa_id: '5511987654321' }],
      messages: [{ id: 'wamid.HELD', message_status: 'held_for_quality_assessment' }],
    });

    const result = await client().send(PHONE_NUMBER_ID, message);

    expect(result.messageStatus).toBe('held_for_quality_assessment');
  });

  it('keeps the path of a base URL behind a proxy, and the leaving hook still sees the request leave', async () => {
    agent
      .get(ORIGIN)
      .intercept({ path: `/graph-proxy${PATH}`, method: 'POST' })
      .reply(200, example('send.response.json'));
    const proxied = new CloudApiClient({
      baseUrl: `${ORIGIN}/graph-proxy`,
      apiVersion: 'v23.0',
      accessToken: new Secret(TOKEN),
      timeoutMs: 5_000,
      dispatcher: agent,
    });
    let left = 0;

    const result = await proxied.send(PHONE_NUMBER_ID, message, () => left++);

    expect(result.wamid).toMatch(/^wamid\./);
    expect(left).toBe(1);
  });

  it('does not close a dispatcher it was given', async () => {
    intercept().reply(200, example('send.response.json')).times(2);
    const c = client();
    await c.send(PHONE_NUMBER_ID, message);
    await c.close();

    // The MockAgent still serves requests: close() left it alone.
    await expect(client().send(PHONE_NUMBER_ID, message)).resolves.toMatchObject({ wamid: expect.stringMatching(/^wamid\./) as unknown });
  });
});

describe('CloudApiClient.send: Graph error bodies become CloudApiError keyed on error.code', () => {
  it('131056 pair rate limit (HTTP 400): metaCode, details, fbtraceId', async () => {
    const error = await sendFailure(() => intercept().reply(400, example('error.pair-rate-limit.json')));

    expect(error).toBeInstanceOf(CloudApiError);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({
      code: 'CLOUD_API_ERROR',
      httpStatus: 400,
      metaCode: 131056,
      subcode: undefined,
      details: 'Too many messages were sent from this business number to the same recipient in a short time.',
      fbtraceId: 'ASimTrace0001',
    });
    expect((error as Error).message).toContain('code 131056');
  });

  it('131056 reported with HTTP 429 keeps the Meta code', async () => {
    const error = await sendFailure(() => intercept().reply(429, example('error.pair-rate-limit.json')));

    expect(error).toMatchObject({ httpStatus: 429, metaCode: 131056 });
  });

  it('100 whitespace in a parameter', async () => {
    const error = await sendFailure(() => intercept().reply(400, example('error.param-whitespace.json')));

    expect(error).toBeInstanceOf(CloudApiError);
    expect(error).toMatchObject({
      httpStatus: 400,
      metaCode: 100,
      details: 'Param text cannot have new-line/tab characters or more than 4 consecutive spaces',
      fbtraceId: 'ASimTrace0002',
    });
  });

  it('190 with subcode 463 (expired token, no error_data): details fall back to the Graph message', async () => {
    const error = await sendFailure(() => intercept().reply(401, example('error.token-expired.json')));

    expect(error).toBeInstanceOf(CloudApiError);
    expect(error).toMatchObject({
      httpStatus: 401,
      metaCode: 190,
      subcode: 463,
      details: 'Error validating access token: Session has expired.',
      fbtraceId: 'ASimTrace0003',
    });
  });

  it('132001 template missing (HTTP 404)', async () => {
    const error = await sendFailure(() => intercept().reply(404, example('error.template-missing.json')));

    expect(error).toBeInstanceOf(CloudApiError);
    expect(error).toMatchObject({
      httpStatus: 404,
      metaCode: 132001,
      subcode: undefined,
      details: 'template name (spring_sale_v3) does not exist in en_GB',
      fbtraceId: 'ASimTrace0004',
    });
  });

  it('a 500 with a Graph body (131000) keeps its code', async () => {
    const error = await sendFailure(() =>
      intercept().reply(500, { error: { message: '(#131000) Something went wrong', code: 131000, fbtrace_id: 'T5' } }),
    );

    expect(error).toMatchObject({ httpStatus: 500, metaCode: 131000, fbtraceId: 'T5' });
  });

  it('a non-JSON 502 becomes CloudApiError with metaCode undefined', async () => {
    const error = await sendFailure(() =>
      intercept().reply(502, '<html><body>502 Bad Gateway</body></html>', { headers: { 'content-type': 'text/html' } }),
    );

    expect(error).toBeInstanceOf(CloudApiError);
    expect(error).toMatchObject({
      code: 'CLOUD_API_ERROR',
      httpStatus: 502,
      metaCode: undefined,
      subcode: undefined,
      details: undefined,
      fbtraceId: undefined,
    });
    expect((error as Error).message).toContain('HTTP 502');
  });

  it('JSON that is not a Graph error (no numeric code) also has metaCode undefined', async () => {
    const error = await sendFailure(() => intercept().reply(400, { error: 'bad request' }));

    expect(error).toBeInstanceOf(CloudApiError);
    expect(error).toMatchObject({ httpStatus: 400, metaCode: undefined });
  });
});

describe('CloudApiClient.send: 200 with a body that is not MessageResponsePayload', () => {
  const badBodies: [string, string | Record<string, unknown>][] = [
    ['not JSON', 'OK'],
    ['an empty object', {}],
    ['empty messages', { messaging_product: 'whatsapp', contacts: [{ input: '+1', wa_id: '1' }], messages: [] }],
    ['empty contacts', { messaging_product: 'whatsapp', contacts: [], messages: [{ id: 'wamid.X' }] }],
    ['an id that is not a wamid', { messaging_product: 'whatsapp', contacts: [{ input: '+1', wa_id: '1' }], messages: [{ id: '12345' }] }],
  ];

  it.each(badBodies)('%s → CloudApiBadResponseError', async (_label, body) => {
    const error = await sendFailure(() => intercept().reply(200, body));

    expect(error).toBeInstanceOf(CloudApiBadResponseError);
    expect(error).toMatchObject({ code: 'CLOUD_API_BAD_RESPONSE', httpStatus: 200 });
  });
});

describe('CloudApiClient.send: no answer → CloudApiTransportError', () => {
  it('a dropped connection is connection-lost and the request may have left', async () => {
    const error = await sendFailure(() => intercept().replyWithError(new undiciErrors.SocketError('other side closed')));

    expect(error).toBeInstanceOf(CloudApiTransportError);
    expect(error).toMatchObject({ code: 'CLOUD_API_TRANSPORT', failure: 'connection-lost', requestMayHaveLeft: true });
    expect((error as Error).cause).toBeInstanceOf(undiciErrors.SocketError);
  });

  it('a refused connection is connect and the request cannot have left', async () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:443'), { code: 'ECONNREFUSED' });
    const error = await sendFailure(() => intercept().replyWithError(refused));

    expect(error).toBeInstanceOf(CloudApiTransportError);
    expect(error).toMatchObject({ failure: 'connect', requestMayHaveLeft: false });
    expect((error as Error).cause).toBe(refused);
  });

  it('a connect timeout is connect', async () => {
    const error = await sendFailure(() => intercept().replyWithError(new undiciErrors.ConnectTimeoutError()));

    expect(error).toMatchObject({ failure: 'connect', requestMayHaveLeft: false });
  });

  // undici's MockAgent ignores headersTimeout/bodyTimeout: `.delay(ms)` only postpones the
  // reply (undici 7.30 lib/mock/mock-utils.js), so a delayed mock reply arrives after any
  // timeout. The timeout path is therefore tested in two halves: the client hands timeoutMs
  // to undici, and undici's timeout errors are classified as `timeout`.
  it('hands timeoutMs to undici as headersTimeout and bodyTimeout', async () => {
    const seen: Dispatcher.DispatchOptions[] = [];
    const recording = agent.compose((dispatch) => (options, handler) => {
      seen.push(options);
      return dispatch(options, handler);
    });
    intercept().reply(200, example('send.response.json'));

    await client({ timeoutMs: 1234, dispatcher: recording }).send(PHONE_NUMBER_ID, message);

    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ headersTimeout: 1234, bodyTimeout: 1234 });
  });

  it('an undici headers timeout is timeout and the request may have left', async () => {
    const error = await sendFailure(() => intercept().replyWithError(new undiciErrors.HeadersTimeoutError()));

    expect(error).toBeInstanceOf(CloudApiTransportError);
    expect(error).toMatchObject({ failure: 'timeout', requestMayHaveLeft: true });
    expect((error as Error).cause).toBeInstanceOf(undiciErrors.HeadersTimeoutError);
  });

  it('an undici body timeout is timeout', async () => {
    const error = await sendFailure(() => intercept().replyWithError(new undiciErrors.BodyTimeoutError()));

    expect(error).toMatchObject({ failure: 'timeout', requestMayHaveLeft: true });
  });
});

describe('the access token never leaks', () => {
  const scenarios: [string, () => void][] = [
    ['Graph error 190', () => intercept().reply(401, example('error.token-expired.json'))],
    ['Graph error 131056', () => intercept().reply(400, example('error.pair-rate-limit.json'))],
    ['non-JSON 502', () => intercept().reply(502, 'Bad Gateway')],
    ['bad 200 body', () => intercept().reply(200, { nope: true })],
    ['dropped connection', () => intercept().replyWithError(new undiciErrors.SocketError('other side closed'))],
    ['headers timeout', () => intercept().replyWithError(new undiciErrors.HeadersTimeoutError())],
  ];

  it.each(scenarios)('%s: not in message, JSON.stringify or util.inspect of the error', async (_label, setup) => {
    const error = await sendFailure(setup);

    expect(error).toBeInstanceOf(AppError);
    expect((error as Error).message).not.toContain(TOKEN);
    expect(JSON.stringify(error)).not.toContain(TOKEN);
    expect(inspect(error, { depth: Infinity, showHidden: true })).not.toContain(TOKEN);
  });

  it('not in util.inspect or JSON.stringify of the client itself', () => {
    const c = client();

    expect(inspect(c, { depth: Infinity, showHidden: true })).not.toContain(TOKEN);
    expect(JSON.stringify(c)).not.toContain(TOKEN);
  });
});
