import { describe, expect, it } from 'vitest';
import { ASYNC_FAILURE_CODES, webhookError } from '../../src/sandbox/async-failures.js';
import { faultSettingsSchema } from '../../src/sandbox/fault-settings.js';
import { toGraphError } from '../../src/sandbox/graph-error.js';
import { SandboxRuntime, type SendReply } from '../../src/sandbox/sandbox-runtime.js';
import { FIXTURE_TEMPLATES, orderUpdate, templateSend, textParam } from './sandbox-fixtures.js';

/**
 * What Meta reports only by webhook is accepted first (reference §2.2, §2.3 "async"), and the
 * number- and request-level faults that are answered at once: unknown phone-number IDs (100/33)
 * and maintenance (131057). No server: the runtime on a fixed clock and draw sequence.
 */
const NUMBER = '106540352242922';
const OTHER = '106540352242923';
const USER = '447700900123';

function runtime(draws: number[] = [0.5], perSecond = 0) {
  let now = 1_000_000;
  let i = 0;
  const rt = new SandboxRuntime({
    templates: FIXTURE_TEMPLATES,
    accessToken: 't',
    phoneNumberIds: [NUMBER, OTHER],
    messagesPerSecond: perSecond,
    pairLimit: false,
    onListenerError: () => undefined,
    clock: () => now,
    random: () => draws[i++ % draws.length] ?? 0,
  });
  return { rt, advance: (ms: number) => (now += ms) };
}

const status = (reply: SendReply): number => ('error' in reply.body ? reply.body.error.code : reply.status);
const text = (to = `+${USER}`) => ({ messaging_product: 'whatsapp', to, type: 'text', text: { body: 'Hi' } });
/** spring_promo is MARKETING in the fixtures; order_update is UTILITY. */
const promo = (to = `+${USER}`) => ({
  ...templateSend('spring_promo', [
    { type: 'header', parameters: [{ type: 'image', image: { link: 'https://cdn.example.com/a.jpg' } }] },
    { type: 'body', parameters: [textParam('Ana'), textParam('25%')] },
  ]),
  to,
});

describe('failures Meta reports only by webhook', () => {
  it('accepts a text outside the service window and marks it failed 131047; inside the window it is plain', () => {
    const { rt, advance } = runtime();
    expect(status(rt.send(NUMBER, text()))).toBe(200);
    rt.windows.open(USER, rt.now());
    advance(1000);
    expect(status(rt.send(NUMBER, text()))).toBe(200);
    expect(rt.log.all.map((m) => m.failure?.code)).toEqual([131047, undefined]);
    expect(rt.log.all[0]?.failure?.details).toMatch(/24 hours/);
    expect(rt.stats()).toMatchObject({ accepted: 2, rejectedByCode: {}, failedByCode: { '131047': 1 } });
  });

  it('never judges a template by the service window', () => {
    const { rt } = runtime();
    expect(status(rt.send(NUMBER, orderUpdate()))).toBe(200);
    expect(rt.log.all[0]?.failure).toBeUndefined();
  });

  it('turns a forced webhook-only code into an accepted send marked failed, `times` times; a sync code stays a 400', () => {
    const { rt } = runtime();
    rt.setFaults({
      recipientErrors: [
        { waId: USER, code: 131026, times: 2 },
        { waId: '447700900124', code: 131030, times: 1 },
      ],
    });
    const replies = [1, 2, 3].map(() => rt.send(NUMBER, orderUpdate()));
    expect(replies.map(status)).toEqual([200, 200, 200]);
    expect(rt.log.all.map((m) => m.failure?.code)).toEqual([131026, 131026, undefined]);
    expect(rt.log.all[0]?.failure?.cause).toBe('recipientErrors');
    expect(status(rt.send(NUMBER, orderUpdate({ to: '+447700900124' })))).toBe(131030);
    expect(rt.stats()).toMatchObject({ accepted: 3, rejectedByCode: { '131030': 1 }, failedByCode: { '131026': 2 } });
  });

  it('does not use up a forced async failure on a send the throughput limit refused', () => {
    const { rt, advance } = runtime([0.5], 1);
    rt.setFaults({ recipientErrors: [{ waId: USER, code: 131049, times: 1 }] });
    expect(status(rt.send(NUMBER, orderUpdate({ to: '+447700900999' })))).toBe(200);
    expect(status(rt.send(NUMBER, orderUpdate()))).toBe(130429);
    advance(1000);
    expect(status(rt.send(NUMBER, orderUpdate()))).toBe(200);
    expect(rt.log.all.map((m) => m.failure?.code)).toEqual([undefined, 131049]);
  });

  it('fails MARKETING templates to opted-out recipients with 131050; utility templates and text still reach them', () => {
    const { rt } = runtime();
    rt.setFaults({ optedOut: [USER] });
    rt.windows.open(USER, rt.now());
    for (const body of [promo(), orderUpdate(), text(), promo('+447700900999')]) expect(status(rt.send(NUMBER, body))).toBe(200);
    expect(rt.log.all.map((m) => m.failure?.code)).toEqual([131050, undefined, undefined, undefined]);
    expect(rt.log.all[0]?.failure?.cause).toBe('optedOut');
  });

  it("fails MARKETING templates to US numbers with 131049 by webhook, as Meta's pause does; Canada, utility and text still go", () => {
    const { rt } = runtime();
    const US = '12125550123';
    rt.windows.open(US, rt.now());
    const sends = [promo(`+${US}`), promo('+14165550123'), orderUpdate({ to: `+${US}` }), text(`+${US}`), promo()];
    for (const body of sends) expect(status(rt.send(NUMBER, body))).toBe(200);
    expect(rt.log.all.map((m) => m.failure?.code)).toEqual([131049, undefined, undefined, undefined, undefined]);
    expect(rt.log.all[0]?.failure?.cause).toBe('usMarketingPaused');
    expect(rt.stats().failedByCode).toEqual({ '131049': 1 });
  });

  it('keeps the US marketing pause when faults are replaced, and lifts it with usMarketingPaused: false', () => {
    const { rt } = runtime();
    rt.setFaults({});
    expect(status(rt.send(NUMBER, promo('+12125550123')))).toBe(200);
    rt.setFaults({ usMarketingPaused: false });
    expect(status(rt.send(NUMBER, promo('+12125550124')))).toBe(200);
    expect(rt.log.all.map((m) => m.failure?.code)).toEqual([131049, undefined]);
    expect(faultSettingsSchema.safeParse({ usMarketingPaused: 'no' }).success).toBe(false);
  });

  it('fails a failureShare of sends, drawing the share and the code from the injected random source', () => {
    // Per send: one draw against the rate, then (when under it) one to pick the code.
    const { rt } = runtime([0.1, 0.0, 0.9, 0.2, 0.99, 0.6]);
    rt.setFaults({ failureShare: { rate: 0.25, codes: [131026, 131049] } });
    for (let n = 0; n < 4; n++) expect(status(rt.send(NUMBER, orderUpdate({ to: `+4477009001${20 + n}` })))).toBe(200);
    // 0.1 < 0.25 → codes[floor(0.0*2)]; 0.9 no; 0.2 < 0.25 → codes[floor(0.99*2)]; 0.6 no.
    expect(rt.log.all.map((m) => m.failure?.code)).toEqual([131026, undefined, 131049, undefined]);
    expect(rt.stats().failedByCode).toEqual({ '131026': 1, '131049': 1 });
  });

  it('builds the webhook error object of §2.2: title and message equal, details, href', () => {
    expect(webhookError({ code: 131049, details: 'why' })).toEqual({
      code: 131049,
      title: 'This message was not delivered to maintain healthy ecosystem engagement.',
      message: 'This message was not delivered to maintain healthy ecosystem engagement.',
      error_data: { details: 'why' },
      href: '/documentation/business-messaging/whatsapp/support/error-codes',
    });
    expect([...ASYNC_FAILURE_CODES].sort()).toEqual([130472, 131026, 131047, 131049, 131050, 131053]);
  });
});

describe('number-level answers', () => {
  it('refuses a phone-number ID it does not have with 100 / 33 GraphMethodException, before faults and validation', () => {
    const { rt } = runtime();
    rt.setFaults({ errorRate: 1 });
    const admitted = rt.admitRequest('999');
    expect(admitted).toMatchObject({ kind: 'error', error: { code: 100, subcode: 33, type: 'GraphMethodException' } });
    if (admitted.kind !== 'error') throw new Error('expected an error');
    const reply = toGraphError(admitted.error);
    expect(reply.status).toBe(400);
    expect(reply.body.error).not.toHaveProperty('error_data');
    expect(reply.body.error.message).toMatch(/Object with ID '999' does not exist/);
    const sent = rt.send('999', { not: 'a message' });
    expect('error' in sent.body ? sent.body.error.error_subcode : sent.status).toBe(33);
    expect(rt.stats().requests).toBe(1);
  });

  it('answers 500 / 131057 for forMs from when maintenance is set, on the named number only', () => {
    const { rt, advance } = runtime();
    rt.setFaults({ maintenance: { forMs: 60_000, phoneNumberId: NUMBER } });
    const during = rt.admitRequest(NUMBER);
    expect(during).toMatchObject({ kind: 'error', error: { code: 131057, status: 500 } });
    if (during.kind !== 'error') throw new Error('expected an error');
    expect(toGraphError(during.error)).toMatchObject({
      status: 500,
      body: { error: { code: 131057, message: '(#131057) Account in maintenance mode' } },
    });
    expect(rt.admitRequest(OTHER)).toEqual({ kind: 'none' });
    advance(59_999);
    expect(rt.admitRequest(NUMBER)).toMatchObject({ kind: 'error', error: { code: 131057 } });
    advance(1);
    expect(rt.admitRequest(NUMBER)).toEqual({ kind: 'none' });
    // Setting the faults again starts a new period; without a number it covers every one.
    rt.setFaults({ maintenance: { forMs: 1000 } });
    expect(rt.admitRequest(OTHER)).toMatchObject({ kind: 'error', error: { code: 131057 } });
    rt.setFaults({});
    expect(rt.admitRequest(OTHER)).toEqual({ kind: 'none' });
  });

  it('refuses an empty or non-numeric list of phone-number IDs', () => {
    const make = (phoneNumberIds: string[]) => () =>
      new SandboxRuntime({
        templates: [],
        accessToken: 't',
        phoneNumberIds,
        messagesPerSecond: 0,
        pairLimit: false,
        onListenerError: () => undefined,
      });
    expect(make([])).toThrow(/at least one/);
    expect(make(['12a'])).toThrow(/digits only/);
  });
});

describe('faultSettingsSchema: the new settings', () => {
  const problem = (settings: unknown): string => {
    const parsed = faultSettingsSchema.safeParse(settings);
    if (parsed.success) throw new Error(`expected ${JSON.stringify(settings)} to be refused`);
    return JSON.stringify(parsed.error.issues);
  };

  it('accepts them at their bounds', () => {
    const settings = {
      optedOut: ['1234567', '123456789012345'],
      failureShare: { rate: 1, codes: [131026, 131047, 131049, 131050] },
      maintenance: { forMs: 1, phoneNumberId: NUMBER },
    };
    expect(faultSettingsSchema.parse(settings)).toEqual(settings);
  });

  it('refuses sync codes in failureShare, rates out of range, empty code lists, bad opt-outs and unknown keys', () => {
    expect(problem({ failureShare: { rate: 0.1, codes: [131056] } })).toMatch(/only by webhook: 131026, 131047, 131049, 131050/);
    expect(problem({ failureShare: { rate: 1.5, codes: [131026] } })).toMatch(/rate/);
    expect(problem({ failureShare: { rate: 0.1, codes: [] } })).toMatch(/at least one code/);
    expect(problem({ failureShare: { rate: 0.1, codes: [131026], code: 1 } })).toMatch(/code/);
    expect(problem({ optedOut: ['+447700900123'] })).toMatch(/digits only/);
    expect(problem({ optedOut: [USER, USER] })).toMatch(/only once/);
    expect(problem({ maintenance: { forMs: 0 } })).toMatch(/forMs/);
    expect(problem({ maintenance: { forMs: 10, phoneNumberId: 'x1' } })).toMatch(/phoneNumberId/);
    expect(problem({ maintenance: { forMs: 10, for: 1 } })).toMatch(/for/);
  });
});
