import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { recordCliAction } from '../../src/cli/run/cli-history.js';
import { retargetCampaign, type RetargetRequest } from '../../src/app/retarget-campaign.js';
import { CLI_FIELD_NAMES } from '../../src/campaigns/spec/field-names.js';
import { runSend } from '../../src/cli/run/send.js';
import { AppError } from '../../src/errors/app-error.js';
import { RedisCampaignHistory } from '../../src/redis/history/redis-campaign-history.js';
import { runCli } from '../support/cli-process.js';
import { PHONE_NUMBER_ID, SAMPLE_TEMPLATES } from '../support/pipeline.js';
import { redisUrl } from '../support/redis.js';
import { startSendRig, type SendRig } from '../support/send-rig.js';
import { waitFor } from '../support/waiting.js';

/** Four recipients; `city` is a column the first campaign does not send, so the ledger does not keep it. */
const ROWS = [
  'phone,first_name,order_id,city',
  '+4915110000001,Ana,A-1,Berlin',
  '+4915110000002,Bruno,A-2,Porto',
  '+4915110000003,Carla,A-3,Lyon',
  '+4915110000004,Dana,A-4,Graz',
];
const FAILING = ['4915110000002', '4915110000004'];

/**
 * `campaign retarget` through the real producer, worker, client and sandbox: the failed rows
 * of a finished campaign become a new campaign with another template, sending exactly them;
 * the duplicate window and the refusals hold; the CLI prints the new campaign as `send --json`.
 */
describe('campaign retarget, end to end', () => {
  let rig: SendRig;

  beforeEach(async () => {
    rig = await startSendRig('retarget');
  });

  afterEach(async () => {
    await rig.close();
  });

  const completed = (campaignId: string) =>
    waitFor(async () => rig.context.ledger.status(campaignId), {
      until: (status) => status?.state === 'completed',
      timeoutMs: 15_000,
      what: `campaign ${campaignId} completed`,
    });

  /** The source campaign, finished: rows 2 and 4 failed (131009), 1 and 3 sent. */
  async function finishedSource(): Promise<void> {
    const file = join(rig.dir, 'orders.csv');
    await writeFile(file, ROWS.join('\n') + '\n');
    rig.sandbox.setFaults({ recipientErrors: FAILING.map((waId) => ({ waId, code: 131009, times: 1 })) });
    await rig.startWorker();
    await runSend(rig.context, rig.options(file, { campaign: 'c-src' }));
    const status = await completed('c-src');
    expect(status?.counts).toMatchObject({ sent: 2, failed: 2 });
  }

  /** retargetCampaign as `campaign retarget` calls it: refusals name the flags, `--templates` is the templates file. */
  const runRetarget = (
    context: SendRig['context'],
    request: Omit<RetargetRequest, 'names' | 'templatesFile'> & { templatesFile?: string },
  ) =>
    retargetCampaign(context, {
      ...request,
      names: CLI_FIELD_NAMES,
      templatesFile: request.templatesFile === undefined ? undefined : { path: request.templatesFile, name: '--templates' },
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

  it('sends exactly the failed rows again, with another template, linked to the source', async () => {
    await finishedSource();
    const sentBefore = rig.sandbox.accepted().length;
    const outcome = await runRetarget(rig.context, {
      campaignId: 'c-src',
      rule: { status: 'failed' },
      message: { template: 'appointment_reminder_named', language: 'en_US', param: { appointment_time: 'order_id' } },
      templatesFile: SAMPLE_TEMPLATES,
      // As `campaign retarget` records it: the CLI's user, on both campaigns.
      record: (campaignId, action, detail) => recordCliAction(rig.context, campaignId, action, detail),
    });
    expect(outcome).toMatchObject({ rows: 2, queued: 2, rejected: 0, skipped: 0 });
    expect(await rig.context.ledger.getCampaign(outcome.id)).toMatchObject({
      sourceCampaign: 'c-src',
      phoneNumberId: PHONE_NUMBER_ID,
      name: 'orders (failed)',
    });
    // Both campaigns' histories name the other, as the operator at this CLI did it.
    const history = new RedisCampaignHistory(rig.context.redis, rig.context.config.queuePrefix);
    const [created] = await history.list(outcome.id);
    expect(created).toMatchObject({
      action: 'retarget',
      actor: { kind: 'cli' },
      detail: 'from campaign c-src (its failed rows): 2 queued',
    });
    expect((await history.list('c-src'))[0]).toMatchObject({
      action: 'retarget',
      detail: `its failed rows taken into campaign ${outcome.id}`,
    });
    await completed(outcome.id);
    const resent = rig.sandbox.accepted().slice(sentBefore);
    expect(resent.map((m) => m.waId).sort()).toStrictEqual(FAILING);
    const bodies = resent.map((m) => JSON.stringify(m.body));
    expect(bodies.every((b) => b.includes('appointment_reminder_named'))).toBe(true);
    expect(bodies.some((b) => b.includes('"Bruno"') && b.includes('"A-2"'))).toBe(true);
  });

  /** The recipients of a campaign's rows, in row order. */
  async function phonesOf(campaignId: string): Promise<string[]> {
    const phones: string[] = [];
    for await (const page of rig.context.ledger.rows(campaignId)) phones.push(...page.map((row) => row.phone));
    return phones;
  }

  it('delivered-not-read and not-replied read the status webhooks and replies; --after counts from them', async () => {
    await finishedSource();
    const wamids = new Map<string, string>();
    for await (const page of rig.context.ledger.rows('c-src')) for (const row of page) if (row.wamid) wamids.set(row.phone, row.wamid);
    const now = await rig.context.ledger.now();
    const status = (phone: string, kind: 'delivered' | 'read', at: number) => ({
      phoneNumberId: PHONE_NUMBER_ID,
      wamid: wamids.get(phone) ?? '',
      kind,
      at,
    });
    await rig.context.ledger.applyStatuses([
      status('+4915110000001', 'delivered', now - 30 * 3_600_000),
      status('+4915110000003', 'delivered', now - 3_600_000),
    ]);
    await rig.context.ledger.applyInbound([
      {
        phoneNumberId: PHONE_NUMBER_ID,
        waId: '4915110000003',
        wamid: 'wamid.in-1',
        at: now,
        replyTo: wamids.get('+4915110000003') ?? '',
        reply: 'YES',
        optOut: false,
      },
    ]);
    const retarget = (rule: { status: 'delivered-not-read' | 'not-replied'; afterMs?: number }) =>
      runRetarget(rig.context, { campaignId: 'c-src', rule, message: { text: 'Hi {{first_name}}' } });

    const delivered = await retarget({ status: 'delivered-not-read' });
    expect(await phonesOf(delivered.id)).toStrictEqual(['+4915110000001', '+4915110000003']);
    const deliveredLongAgo = await retarget({ status: 'delivered-not-read', afterMs: 24 * 3_600_000 });
    expect(await phonesOf(deliveredLongAgo.id)).toStrictEqual(['+4915110000001']);
    const notReplied = await retarget({ status: 'not-replied' });
    expect(await phonesOf(notReplied.id)).toStrictEqual(['+4915110000001']);
  });

  it('the duplicate window applies: the sent rows again with the same message are skipped ALREADY_SENT', async () => {
    await finishedSource();
    const outcome = await runRetarget(rig.context, {
      campaignId: 'c-src',
      rule: { status: 'not-replied' },
      message: { template: 'order_update', language: 'en_US', params: ['first_name', 'order_id'] },
      templatesFile: SAMPLE_TEMPLATES,
    });
    expect(outcome).toMatchObject({ rows: 2, queued: 0, skipped: 2, byReason: { ALREADY_SENT: 2 } });
  });

  it('refuses a campaign that is not finished, and creates nothing when no row is chosen', async () => {
    const file = join(rig.dir, 'later.csv');
    await writeFile(file, ROWS.join('\n') + '\n');
    const at = new Date(Date.now() + 3_600_000).toISOString();
    await runSend(rig.context, rig.options(file, { campaign: 'c-later', at }));
    const notFinished = await refusal(
      runRetarget(rig.context, { campaignId: 'c-later', rule: { status: 'failed' }, message: { text: 'Hi' } }),
    );
    expect(notFinished.code).toBe('CAMPAIGN_NOT_FINISHED');
    expect(notFinished.message).toContain('c-later is scheduled');

    await finishedSource();
    const before = await rig.context.ledger.listCampaigns();
    const none = await refusal(
      runRetarget(rig.context, { campaignId: 'c-src', rule: { status: 'delivered-not-read' }, message: { text: 'Hi' } }),
    );
    expect(none.code).toBe('RETARGET_NO_ROWS');
    expect(await rig.context.ledger.listCampaigns()).toStrictEqual(before);
    const missing = await refusal(runRetarget(rig.context, { campaignId: 'c-nope', rule: { status: 'failed' }, message: { text: 'Hi' } }));
    expect(missing.code).toBe('CAMPAIGN_NOT_FOUND');
  });

  it('the CLI: --json prints the new campaign as send --json does, and status shows its source', async () => {
    await finishedSource();
    const env = {
      REDIS_URL: redisUrl(),
      QUEUE_PREFIX: rig.prefix,
      WHATSAPP_API_URL: rig.sandbox.url,
      WHATSAPP_PHONE_NUMBER_ID: PHONE_NUMBER_ID,
      REPORTS_DIR: join(rig.dir, 'reports'),
      LOG_LEVEL: 'silent',
    };
    const args = ['retarget', 'c-src', '--status', 'failed', '--template', 'order_update', '--language', 'en_US'];
    const result = await runCli([...args, '--params', 'first_name,order_id', '--templates', SAMPLE_TEMPLATES, '--json'], env);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const printed = JSON.parse(result.stdout) as { id: string; rows: number; queued: number };
    expect(printed).toMatchObject({ dryRun: false, rows: 2, queued: 2 });
    const status = await runCli(['status', printed.id, '--json'], env);
    expect(JSON.parse(status.stdout)).toMatchObject({ id: printed.id, sourceCampaign: 'c-src' });
    const text = await runCli(['status', printed.id], env);
    expect(text.stdout).toContain('retargets rows of campaign c-src');
    const running = await runCli(['retarget', 'c-src', '--status', 'read', '--text', 'Hi'], env);
    expect(running.code).not.toBe(0);
    expect(running.stderr).toContain('OPTION_INVALID');
  });

  it("the CLI: --help lists send's message flags, each with send's help text", async () => {
    const [retarget, send] = await Promise.all([runCli(['retarget', '--help'], {}), runCli(['send', '--help'], {})]);
    expect(retarget.code).toBe(0);
    expect(send.code).toBe(0);
    const retargetOptions = optionHelp(retarget.stdout);
    const sendOptions = optionHelp(send.stdout);
    for (const flag of MESSAGE_FLAGS) {
      expect(retargetOptions.get(flag), flag).toBeDefined();
      expect(retargetOptions.get(flag), flag).toBe(sendOptions.get(flag));
    }
  });
});

/** The flags of the new campaign's message: `send`'s, declared for both from one table. */
const MESSAGE_FLAGS = [
  '--template',
  '--language',
  '--text',
  '--preview-url',
  '--params',
  '--param',
  '--header-text-column',
  '--header-image-column',
  '--button-url-column',
  '--language-column',
  '--media-by',
];

/** Each option of a `--help` by its flag: its value placeholder and help text, the wrapped lines joined. */
function optionHelp(help: string): Map<string, string> {
  const options = new Map<string, string>();
  let current: string | undefined;
  for (const line of help.slice(help.indexOf('Options:')).split('\n').slice(1)) {
    const [, flag, rest] = /^ {2}(--[a-z-]+)(.*)$/.exec(line) ?? [];
    if (flag !== undefined) {
      current = flag;
      options.set(flag, (rest ?? '').trim().replace(/\s+/g, ' '));
    } else if (current !== undefined && /^\s+\S/.test(line)) {
      options.set(current, `${options.get(current)} ${line.trim()}`);
    } else current = undefined;
  }
  return options;
}
