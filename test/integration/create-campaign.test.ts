import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CampaignDefinition } from '../../src/campaigns/campaign.js';
import { createCampaign, type CreateCampaignDeps } from '../../src/campaigns/create-campaign.js';
import type { CampaignSpecInput } from '../../src/campaigns/spec/campaign-spec.js';
import { CLI_FIELD_NAMES, JSON_FIELD_NAMES } from '../../src/campaigns/spec/field-names.js';
import { parseCampaignSpec } from '../../src/campaigns/spec/parse-spec.js';
import { isAppError } from '../../src/errors/app-error.js';
import { campaignDeps, runSend } from '../../src/cli/run/send.js';
import { buildTemplateRegistry } from '../../src/cli/run/templates.js';
import { runCli } from '../support/cli-process.js';
import { phoneNumber } from '../support/csv-files.js';
import { SAMPLE_TEMPLATES } from '../support/pipeline.js';
import { startSendRig, type SendRig } from '../support/send-rig.js';

/**
 * createCampaign is the one entry that checks, plans and ingests a campaign spec, whether the
 * CLI mapped its flags onto it (runSend) or a caller sent it as JSON. Real Redis under a fresh
 * prefix, the sample templates; no worker runs (the campaigns are only created).
 */
const HEADER = 'phone,first_name,order_id';
const good = (n: number) => `${phoneNumber(n)},Name${n},A-${n}`;

describe('createCampaign: a spec from the CLI or from JSON', () => {
  let rig: SendRig;

  beforeEach(async () => {
    rig = await startSendRig('create-campaign');
  });

  afterEach(async () => {
    await rig.close();
  });

  /** The process's dependencies, with the sample templates as the configured source (a JSON caller names no templates file). */
  const deps = (): CreateCampaignDeps => ({
    ...campaignDeps(rig.context),
    openTemplates: () => buildTemplateRegistry(rig.context, { file: SAMPLE_TEMPLATES }),
  });

  async function csv(name: string, lines: string[]): Promise<string> {
    const file = join(rig.dir, name);
    await writeFile(file, [HEADER, ...lines].join('\n') + '\n');
    return file;
  }

  const fromJson = (spec: unknown, file: string) =>
    createCampaign(deps(), { spec: parseCampaignSpec(JSON.parse(JSON.stringify(spec)), JSON_FIELD_NAMES), names: JSON_FIELD_NAMES, file });

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
        campaignId: 'from-flags',
        priority: 'high',
        schedule: { at, validFor: '6h' },
        window: '00:00-24:00',
        days: 'mon-sun',
      }),
    );
    const json = await fromJson(
      {
        template: { name: 'order_update', language: 'en_US' },
        csv: { params: ['first_name', 'order_id'] },
        schedule: { at, validFor: '6h' },
        window: { hours: '00:00-24:00', days: 'mon-sun' },
        priority: 'high',
        campaignId: 'from-json',
      } satisfies CampaignSpecInput,
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
    const template = { name: 'order_update', language: 'en_US' };

    const mapping = await refusal(fromJson({ template, csv: { params: ['first_name'] } }, file));
    expect(mapping.code).toBe('TEMPLATE_MAPPING_INVALID');
    expect(mapping.message).toContain('but csv.params names 1 column(s)');
    expect(mapping.message).not.toContain('--');

    const phone = await refusal(fromJson({ template, csv: { phoneColumn: 'mobile', params: ['first_name', 'order_id'] } }, file));
    expect(phone).toMatchObject({
      code: 'CSV_HEADER_INVALID',
      message: expect.stringContaining('Rename the column or pass csv.phoneColumn;') as unknown,
    });

    const text = await refusal(fromJson({ text: { body: 'Hi {{name}}' } }, file));
    expect(text).toMatchObject({
      code: 'CSV_HEADER_INVALID',
      message: expect.stringContaining("the text's placeholder {{name}} names no column") as unknown,
    });

    const start = await refusal(
      fromJson({ template, csv: { params: ['first_name', 'order_id'] }, schedule: { at: '2027-02-30T09:00:00+01:00' } }, file),
    );
    expect(start).toMatchObject({
      code: 'TIME_INVALID',
      message: expect.stringMatching(/^schedule\.at "2027-02-30T09:00:00\+01:00": 2027-02-30 has no such day/) as unknown,
    });

    expect(await rig.context.ledger.listCampaigns()).toStrictEqual([]);
  });

  it("every flag the spec's fields are named by is an option of `campaign send`", async () => {
    const help = await runCli(['send', '--help'], {});
    expect(help.code).toBe(0);
    for (const flag of Object.values(CLI_FIELD_NAMES)) expect(help.stdout, flag).toMatch(new RegExp(`^  ${flag}( <|\\s)`, 'm'));
  });
});
