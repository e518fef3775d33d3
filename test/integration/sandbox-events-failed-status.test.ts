import { afterEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/index.js';
import { schemaErrors } from '../support/openapi-schemas.js';
import { orderUpdate, postJson, send, startTestSandbox } from './sandbox-helpers.js';
import { FAST, SECRET, startReceiver, statusesOf, type Receiver } from './sandbox-events-receiver.js';

/**
 * Failures Meta reports by a `failed` status webhook, for any code it reports that way: the
 * failedStatus fault (also for codes Meta answers at once elsewhere), and the webhook-only
 * codes 130472 (an experiment) and 131053 (media) through recipientErrors and failureShare.
 * Each send is answered 200 with a wamid; the failure arrives later, signed, in Meta's words.
 */
const HREF = '/documentation/business-messaging/whatsapp/support/error-codes';

describe('sandbox events: failed statuses for any code', () => {
  let sandbox: Sandbox | undefined;
  let receiver: Receiver | undefined;

  afterEach(async () => {
    await sandbox?.close();
    await receiver?.close();
    sandbox = undefined;
    receiver = undefined;
  });

  /** The error objects of the `failed` statuses of this wamid, and every status it got. */
  const outcome = (r: Receiver, wamid: string) => {
    const mine = statusesOf(r.posts).filter((s) => s.id === wamid);
    return { kinds: mine.map((s) => s.status).sort(), errors: mine.flatMap((s) => s.errors ?? []) };
  };
  const finished = (r: Receiver, wamids: string[]) => () =>
    wamids.every((wamid) => statusesOf(r.posts).some((s) => s.id === wamid && s.status !== 'sent'));

  it('failedStatus: accepts the send and reports it failed with the code, in Meta’s words, `times` times', async () => {
    const r = (receiver = await startReceiver());
    sandbox = await startTestSandbox({
      messagesPerSecond: 0,
      webhooks: { url: r.url, appSecret: SECRET, ...FAST },
      faults: {
        failedStatus: [
          { waId: '447700900801', code: 131000, times: 2 },
          { waId: '447700900802', code: 130472, times: 1 },
          { waId: '447700900803', code: 131053, times: 1 },
        ],
        // The same code by recipientErrors is answered at once, as Meta answers it elsewhere.
        recipientErrors: [{ waId: '447700900804', code: 131000, times: 1 }],
      },
    });
    const wamids: string[] = [];
    for (const to of ['+447700900801', '+447700900801', '+447700900801', '+447700900802', '+447700900803']) {
      const reply = await send(sandbox, orderUpdate(to));
      expect(reply.status, to).toBe(200);
      wamids.push(reply.body.messages?.[0]?.id ?? '');
    }
    const sync = await send(sandbox, orderUpdate('+447700900804'));
    expect(sync.status).toBe(400);
    expect(sync.body.error?.code).toBe(131000);

    await r.until('a final status for every accepted send', finished(r, wamids));
    expect(r.posts.every((p) => p.signedOk)).toBe(true);
    const [first, second, third, experiment, media] = wamids.map((wamid) => outcome(r, wamid));
    expect(first?.kinds).toEqual(['failed', 'sent']);
    expect(second?.kinds).toEqual(['failed', 'sent']);
    // `times: 2` used up: the third send to that user goes through.
    expect(third?.kinds).toEqual(['delivered', 'sent']);
    expect(first?.errors).toEqual([
      {
        code: 131000,
        title: 'Something went wrong',
        message: 'Something went wrong',
        error_data: { details: 'Message failed to send due to an unknown error.' },
        href: HREF,
      },
    ]);
    expect(experiment?.errors).toEqual([
      {
        code: 130472,
        title: "User's number is part of an experiment",
        message: "User's number is part of an experiment",
        error_data: { details: 'Message was not sent as part of an experiment.' },
        href: HREF,
      },
    ]);
    expect(media?.errors).toEqual([
      {
        code: 131053,
        title: 'Media upload error',
        message: 'Media upload error',
        error_data: { details: 'Unable to upload the media used in the message.' },
        href: HREF,
      },
    ]);
    expect(sandbox.accepted().find((m) => m.waId === '447700900802')?.failure?.cause).toBe('failedStatus');
    expect(sandbox.stats()).toMatchObject({
      accepted: 5,
      rejectedByCode: { '131000': 1 },
      failedByCode: { '131000': 2, '130472': 1, '131053': 1 },
    });
    // Every POST is a webhook Meta's OpenAPI accepts.
    for (const post of r.posts) expect(schemaErrors('WebhookPayload', post.body)).toEqual([]);
  });

  it('recipientErrors and failureShare carry 130472 and 131053 by webhook, never as a 400', async () => {
    const r = (receiver = await startReceiver());
    sandbox = await startTestSandbox({
      messagesPerSecond: 0,
      webhooks: { url: r.url, appSecret: SECRET, ...FAST },
      faults: { recipientErrors: [{ waId: '447700900811', code: 130472, times: 1 }] },
    });
    const experiment = await send(sandbox, orderUpdate('+447700900811'));
    expect(experiment.status).toBe(200);
    sandbox.setFaults({ failureShare: { rate: 1, codes: [131053] } });
    const media = await send(sandbox, orderUpdate('+447700900812'));
    expect(media.status).toBe(200);
    const wamids = [experiment, media].map((reply) => reply.body.messages?.[0]?.id ?? '');

    await r.until('both failures', finished(r, wamids));
    expect(r.posts.every((p) => p.signedOk)).toBe(true);
    expect(wamids.map((wamid) => outcome(r, wamid).errors.map((e) => e['code']))).toEqual([[130472], [131053]]);
    expect(sandbox.accepted().map((m) => m.failure?.cause)).toEqual(['recipientErrors', 'failureShare']);
  });

  it('refuses a failedStatus setting it cannot honour, changing nothing', async () => {
    sandbox = await startTestSandbox();
    const faults = (body: unknown) => postJson<{ error?: string }>(`${sandbox?.url ?? ''}/_sandbox/faults`, body);
    const cases: [unknown, RegExp][] = [
      [{ failedStatus: [{ waId: '447700900821', code: 131030, times: 1 }] }, /one Meta reports in a failed status: .*130472.*131053/],
      [{ failedStatus: [{ waId: '+447700900821', code: 131000, times: 1 }] }, /digits only/],
      [{ failedStatus: [{ waId: '447700900821', code: 131000, times: 0 }] }, /times/],
      [{ failedStatus: [{ waId: '447700900821', code: 131000, times: 1, when: 'now' }] }, /when/],
      [
        {
          failedStatus: [
            { waId: '447700900821', code: 131000, times: 1 },
            { waId: '447700900821', code: 130472, times: 1 },
          ],
        },
        /only once/,
      ],
      [
        {
          failedStatus: [{ waId: '447700900821', code: 131000, times: 1 }],
          recipientErrors: [{ waId: '447700900821', code: 131026, times: 1 }],
        },
        /recipientErrors or failedStatus, not both/,
      ],
    ];
    for (const [body, why] of cases) {
      const reply = await faults(body);
      expect(reply.status, JSON.stringify(body)).toBe(400);
      expect(reply.body.error, JSON.stringify(body)).toMatch(why);
    }
    expect((await faults({ failedStatus: [{ waId: '447700900821', code: 132015, times: 3 }] })).status).toBe(200);
  });
});
