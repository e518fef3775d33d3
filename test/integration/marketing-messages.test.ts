import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SendOptions } from '../../src/cli/run/send.js';
import { runSend } from '../../src/cli/run/send.js';
import { AppError } from '../../src/errors/app-error.js';
import { DEFAULT_BUSINESS_ACCOUNT_IDS } from '../../src/sandbox/index.js';
import { SAMPLE_TEMPLATES } from '../support/pipeline.js';
import { startSendRig, type SendRig } from '../support/send-rig.js';
import { waitFor } from '../support/waiting.js';

/** spring_promo is MARKETING; none of these numbers is in the US (Meta's US pause is not what this tests). */
const PROMO_ROWS = [
  'phone,name,discount,banner',
  '+4915110000001,Ana,25%,https://example.com/a.jpg',
  '+4915110000002,Bruno,25%,https://example.com/b.jpg',
  '+4915110000003,Carla,25%,https://example.com/c.jpg',
];

/**
 * `send --endpoint marketing-messages` through the real producer, worker, client and sandbox:
 * every row goes to /marketing_messages, a template of another category or a text is refused
 * before the file is read, and a business not onboarded pauses the campaign with what to do.
 */
describe('the Marketing Messages API, end to end', () => {
  let rig: SendRig;

  beforeEach(async () => {
    rig = await startSendRig('mm-api', { TEMPLATES_FILE: SAMPLE_TEMPLATES });
  });

  afterEach(async () => {
    await rig.close();
  });

  /** The campaign, once the worker has answered all its rows. */
  const completedCampaign = (campaignId: string) =>
    waitFor(async () => rig.context.ledger.status(campaignId), {
      until: (status) => status?.state === 'completed',
      timeoutMs: 15_000,
      what: `campaign ${campaignId} completed`,
    });

  async function promoFile(): Promise<string> {
    const file = join(rig.dir, 'promo.csv');
    await writeFile(file, PROMO_ROWS.join('\n') + '\n');
    return file;
  }

  const send = (file: string, options: Partial<SendOptions> & { campaign: string }) =>
    runSend(rig.context, {
      file,
      template: 'spring_promo',
      language: 'en_US',
      phoneColumn: 'phone',
      params: ['name', 'discount'],
      headerImageColumn: 'banner',
      // The banner's link is an example one: sent as the link, as Meta would fetch it.
      mediaBy: 'link',
      endpoint: 'marketing-messages',
      ...options,
    });

  async function refusal(promise: Promise<unknown>): Promise<AppError> {
    try {
      await promise;
    } catch (error) {
      if (error instanceof AppError) return error;
      throw error;
    }
    throw new Error('expected a refusal');
  }

  it('sends every row of a MARKETING template through /marketing_messages, and records the endpoint', async () => {
    const file = await promoFile();
    await rig.startWorker();
    const outcome = await send(file, { campaign: 'c-mm' });
    expect(outcome).toMatchObject({ rows: 3, queued: 3 });
    expect(await rig.context.ledger.getCampaign('c-mm')).toMatchObject({ endpoint: 'marketing-messages', category: 'MARKETING' });
    await completedCampaign('c-mm');
    const accepted = rig.sandbox.accepted();
    expect(accepted).toHaveLength(3);
    for (const message of accepted) {
      expect(message.endpoint).toBe('marketing_messages');
      expect(message.body).toMatchObject({ type: 'template', template: { name: 'spring_promo' } });
    }
    expect((await rig.context.ledger.status('c-mm'))?.counts).toMatchObject({ sent: 3, failed: 0 });
  });

  it('refuses a UTILITY template and a text before the file is read (it does not even exist)', async () => {
    const missing = join(rig.dir, 'never-written.csv');
    const utility = await refusal(send(missing, { campaign: 'c-util', template: 'order_update', headerImageColumn: undefined }));
    expect(utility.code).toBe('TEMPLATE_NOT_MARKETING');
    expect(utility.message).toMatch(/^--endpoint marketing-messages sends MARKETING templates only; order_update is UTILITY/);
    const text = await refusal(send(missing, { campaign: 'c-text', template: undefined, language: undefined, text: 'Hi {{name}}' }));
    expect(text.code).toBe('OPTION_INVALID');
    expect(await rig.context.ledger.listCampaigns()).toEqual([]);
    expect(rig.sandbox.stats().requests).toBe(0);
  });

  it('a number not onboarded (134102) pauses the campaign with a reason that says what to do; no row fails', async () => {
    rig.sandbox.setFaults({ marketingMessagesRefusal: { code: 134102 } });
    const file = await promoFile();
    await rig.startWorker();
    await send(file, { campaign: 'c-not-onboarded' });
    const paused = await waitFor(async () => rig.context.ledger.status('c-not-onboarded'), {
      until: (s) => s?.state === 'paused',
      timeoutMs: 10_000,
      what: 'campaign paused on 134102',
    });
    expect(paused?.pausedReason).toMatch(/^134102: .*onboarding in WhatsApp Manager/);
    expect(paused?.counts).toMatchObject({ failed: 0, sent: 0 });
    expect(rig.sandbox.accepted()).toEqual([]);
  });

  it("--ttl sets the template's time-to-live at Meta before the file is read; a dry run does not", async () => {
    const ttlOf = async () => {
      const list = `${rig.sandbox.url}/v25.0/${DEFAULT_BUSINESS_ACCOUNT_IDS[0]}/message_templates`;
      const url = `${list}?fields=name,message_send_ttl_seconds&name=spring_promo`;
      const answer = await fetch(url, { headers: { authorization: 'Bearer send-rig-token' } });
      const body = (await answer.json()) as { data: { name: string; message_send_ttl_seconds?: number }[] };
      return body.data.find((t) => t.name === 'spring_promo')?.message_send_ttl_seconds;
    };
    const file = await promoFile();
    await send(file, { campaign: 'c-ttl-dry', ttl: '36h', dryRun: true });
    expect(await ttlOf()).toBeUndefined();
    await send(file, { campaign: 'c-ttl', ttl: '36h' });
    expect(await ttlOf()).toBe(129_600);
    expect(rig.sandbox.accepted()).toEqual([]);
  });
});
