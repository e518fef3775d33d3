import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CampaignDefinition } from '../../src/campaigns/campaign.js';
import { createCampaignDeps } from '../../src/app/create-campaign-deps.js';
import { sendCampaign } from '../../src/app/send-campaign.js';
import { buildTemplateRegistry } from '../../src/app/templates.js';
import type { CreateCampaignDeps } from '../../src/campaigns/create-campaign.js';
import { readCampaignFlags } from '../../src/campaigns/spec/campaign-flags.js';
import { CLI_FIELD_NAMES, FLAG_FIELD_NAMES } from '../../src/campaigns/spec/field-names.js';
import { isAppError } from '../../src/errors/app-error.js';
import { runSend } from '../../src/cli/run/send.js';
import { runCli } from '../support/cli-process.js';
import { phoneNumber } from '../support/csv-files.js';
import { SAMPLE_TEMPLATES } from '../support/pipeline.js';
import { startSendRig, type SendRig } from '../support/send-rig.js';

/**
 * sendCampaign is the one use case that reads, checks, plans and ingests a campaign's flags,
 * whether the CLI's options gave them (runSend) or a caller sent them as the API's JSON. Real
 * Redis under a fresh prefix, the sample templates; no worker runs (the campaigns are only created).
 */
const HEADER = 'phone,first_name,order_id';
const good = (n: number) => `${phoneNumber(n)},Name${n},A-${n}`;

describe('sendCampaign: a campaign from the CLI or from JSON', () => {
  let rig: SendRig;

  beforeEach(async () => {
    rig = await startSendRig('create-campaign');
  });

  afterEach(async () => {
    await rig.close();
  });

  /** The process's dependencies, with the sample templates as the configured source (a JSON caller names no templates file). */
  const deps = (): CreateCampaignDeps => ({
    ...createCampaignDeps(rig.context),
    openTemplates: () => buildTemplateRegistry(rig.context, { file: SAMPLE_TEMPLATES }),
  });

  async function csv(name: string, lines: string[]): Promise<string> {
    const file = join(rig.dir, name);
    await writeFile(file, [HEADER, ...lines].join('\n') + '\n');
    return file;
  }

  /** As POST /campaigns reads its JSON: each problem of its shape reported with the spec's own. */
  const fromJson = (json: unknown, file: string) => {
    const { flags, problems } = readCampaignFlags(JSON.parse(JSON.stringify(json)));
    return sendCampaign(deps(), { flags: flags ?? {}, names: FLAG_FIELD_NAMES, file, everyProblem: { found: problems } });
  };

  async function refusal(run: Promise<unknown>): Promise<{ code: string; message: string }> {
    const error = await run.then(
      () => undefined,
      (e: unknown) => e,
    );
    if (!isAppError(error)) throw new Error(`expected an AppError, got ${String(error)}`);
    return { code: error.code, message: error.message };
  }

  it('a JSON spec and the same flags create the same campaign, with the same summary and plan', async () => {
    const file = await csv('six.csv', [good(1), good(2), 'not-a-number,Bad,B-1', good(3), good(1), good(4)]);
    const at = new Date(Date.now() + 3_600_000).toISOString();
    const flags = await runSend(
      rig.context,
      rig.options(file, {
        campaign: 'from-flags',
        priority: 'high',
        at,
        validFor: '6h',
        window: '00:00-24:00',
        days: 'mon-sun',
      }),
    );
    const json = await fromJson(
      {
        template: 'order_update',
        language: 'en_US',
        params: ['first_name', 'order_id'],
        at,
        validFor: '6h',
        window: '00:00-24:00',
        days: 'mon-sun',
        priority: 'high',
        campaign: 'from-json',
      },
      file,
    );

    expect(json).toMatchObject({
      id: 'from-json',
      rows: 6,
      valid: 4,
      queued: 4,
      rejected: 1,
      skipped: 1,
      byReason: { PHONE_INVALID: 1, DUPLICATE_PHONE: 1 },
    });
    expect(json.rejectsFile).toBe(join(rig.context.config.reportsDir, 'from-json.rejects.csv'));
    // The same plan, but the second campaign sees the first's rows queued in its portfolio.
    expect(flags.messagingLimit?.queuedElsewhere).toBe(0);
    expect(json.messagingLimit?.queuedElsewhere).toBe(4);
    const plan = (outcome: typeof json) => ({
      ...outcome,
      id: '',
      rejectsFile: '',
      messagingLimit: { ...outcome.messagingLimit, queuedElsewhere: 0 },
    });
    expect(plan(json)).toStrictEqual(plan(flags));
    /** The stored definition, but its ID and creation time. */
    const stored = async (id: string): Promise<CampaignDefinition> => {
      const definition = await rig.context.ledger.getCampaign(id);
      if (definition === undefined) throw new Error(`campaign ${id} was not created`);
      return { ...definition, id: '', createdAt: 0 };
    };
    expect(await stored('from-json')).toStrictEqual(await stored('from-flags'));
    expect(await stored('from-json')).toMatchObject({
      priority: 'high',
      startsAt: Date.parse(at),
      expiresAt: Date.parse(at) + 6 * 3_600_000,
    });
  });

  it('refusals of a JSON spec name its fields, not the flags, and create nothing', async () => {
    const file = await csv('two.csv', [good(1), good(2)]);
    const template = { template: 'order_update', language: 'en_US' };

    const mapping = await refusal(fromJson({ ...template, params: ['first_name'] }, file));
    expect(mapping.code).toBe('TEMPLATE_MAPPING_INVALID');
    expect(mapping.message).toContain('but params names 1 column(s)');
    expect(mapping.message).not.toContain('--');

    const phone = await refusal(fromJson({ ...template, phoneColumn: 'mobile', params: ['first_name', 'order_id'] }, file));
    expect(phone).toMatchObject({
      code: 'CSV_HEADER_INVALID',
      message: expect.stringContaining('the header has no column "mobile" (phoneColumn)') as unknown,
    });

    const text = await refusal(fromJson({ text: 'Hi {{name}}' }, file));
    expect(text).toMatchObject({
      code: 'CSV_HEADER_INVALID',
      message: expect.stringContaining('the header has no column "name" (text)') as unknown,
    });

    const start = await refusal(fromJson({ ...template, params: ['first_name', 'order_id'], at: '2027-02-30T09:00:00+01:00' }, file));
    expect(start).toMatchObject({
      code: 'TIME_INVALID',
      message: expect.stringMatching(/^at "2027-02-30T09:00:00\+01:00": 2027-02-30 has no such day/) as unknown,
    });

    const cost = await refusal(fromJson({ ...template, params: ['first_name', 'order_id'], maxCost: 0.0001 }, file));
    expect(cost).toMatchObject({ code: 'COST_ABOVE_MAX', message: expect.stringMatching(/is above maxCost 0.0001 /) as unknown });

    expect(await rig.context.ledger.listCampaigns()).toStrictEqual([]);
  });

  it('maxCost is a field of the spec at both edges: the plan says whether it would refuse, the same for both', async () => {
    const file = await csv('two.csv', [good(1), good(2)]);
    const flags = await runSend(rig.context, rig.options(file, { maxCost: 100, dryRun: true }));
    const json = await fromJson(
      { template: 'order_update', language: 'en_US', params: ['first_name', 'order_id'], maxCost: 100, dryRun: true },
      file,
    );
    expect(flags.maxCost).toStrictEqual({ amount: 100, refused: null });
    expect(json.maxCost).toStrictEqual(flags.maxCost);
  });

  it("every flag the spec's fields are named by is an option of `campaign send`", async () => {
    const help = await runCli(['send', '--help'], {});
    expect(help.code).toBe(0);
    for (const flag of Object.values(CLI_FIELD_NAMES)) expect(help.stdout, flag).toMatch(new RegExp(`^  ${flag}( <|\\s)`, 'm'));
  });
});
