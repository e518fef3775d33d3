import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCampaignDeps } from '../../src/app/create-campaign-deps.js';
import { sendCampaign } from '../../src/app/send-campaign.js';
import { buildTemplateRegistry } from '../../src/app/templates.js';
import type { CampaignFlags } from '../../src/campaigns/spec/campaign-flags.js';
import { FLAG_FIELD_NAMES } from '../../src/campaigns/spec/field-names.js';
import { phoneNumber } from '../support/csv-files.js';
import { SAMPLE_TEMPLATES } from '../support/pipeline.js';
import { startSendRig, type SendRig } from '../support/send-rig.js';
import { waitFor } from '../support/waiting.js';

/**
 * A language per recipient (`languageColumn`): each row is sent in the approved translation of
 * its language (order_update has en_US and pt_BR in the samples), `-`/`_` and case alike; a row
 * in a language the template lacks gets the fallback (`language`), or without one is skipped
 * as TEMPLATE_LANGUAGE_MISSING. The plan counts rows per language.
 */
describe('a language per recipient (real Redis, worker, sandbox)', () => {
  let rig: SendRig;

  beforeEach(async () => {
    rig = await startSendRig('languages');
  });
  afterEach(async () => {
    await rig.close();
  });

  async function send(flags: CampaignFlags, rows: string[]) {
    const file = join(rig.dir, 'languages.csv');
    await writeFile(file, ['phone,first_name,order_id,lang', ...rows].join('\n') + '\n');
    const deps = {
      ...createCampaignDeps(rig.context),
      openTemplates: () => buildTemplateRegistry(rig.context, { file: SAMPLE_TEMPLATES }),
    };
    const outcome = await sendCampaign(deps, {
      flags: { template: 'order_update', params: ['first_name', 'order_id'], languageColumn: 'lang', ...flags },
      names: FLAG_FIELD_NAMES,
      file,
    });
    if (outcome.queued > 0) {
      await rig.startWorker();
      await waitFor(() => rig.context.ledger.status(outcome.id), {
        what: `campaign ${outcome.id} completed`,
        until: (s) => s?.state === 'completed',
      });
    }
    const languageOf = new Map(
      rig.sandbox.accepted().map((m) => [m.to, (m.body as { template: { language: { code: string } } }).template.language.code]),
    );
    return { outcome, languageOf };
  }

  it('with a fallback: each row in its translation, the rest in the fallback; rows counted per language', async () => {
    const { outcome, languageOf } = await send({ language: 'en_US' }, [
      `${phoneNumber(1)},Maria,A-1,pt_BR`,
      `${phoneNumber(2)},João,A-2,pt-br`,
      `${phoneNumber(3)},Ann,A-3,en_US`,
      `${phoneNumber(4)},Hans,A-4,de_DE`,
      `${phoneNumber(5)},Kim,A-5,`,
    ]);
    expect(outcome).toMatchObject({ queued: 5, rejected: 0, skipped: 0, byLanguage: { pt_BR: 2, en_US: 3 } });
    expect(Object.fromEntries(languageOf)).toEqual({
      [phoneNumber(1)]: 'pt_BR',
      [phoneNumber(2)]: 'pt_BR',
      [phoneNumber(3)]: 'en_US',
      [phoneNumber(4)]: 'en_US',
      [phoneNumber(5)]: 'en_US',
    });
    // Each translation's own text is what the sandbox rendered: the Portuguese send fills the pt_BR body.
    const maria = rig.sandbox.accepted().find((m) => m.to === phoneNumber(1));
    expect(maria?.body).toMatchObject({
      template: { name: 'order_update', components: [{ type: 'body', parameters: [{ text: 'Maria' }, { text: 'A-1' }] }] },
    });
  });

  it('without a fallback: a row in a language the template lacks is skipped TEMPLATE_LANGUAGE_MISSING, the others sent', async () => {
    const { outcome, languageOf } = await send({}, [
      `${phoneNumber(6)},Maria,A-6,pt_BR`,
      `${phoneNumber(7)},Hans,A-7,de_DE`,
      `${phoneNumber(8)},Ann,A-8,EN-us`,
    ]);
    expect(outcome).toMatchObject({
      queued: 2,
      skipped: 1,
      byReason: { TEMPLATE_LANGUAGE_MISSING: 1 },
      byLanguage: { pt_BR: 1, en_US: 1 },
    });
    expect(Object.fromEntries(languageOf)).toEqual({ [phoneNumber(6)]: 'pt_BR', [phoneNumber(8)]: 'en_US' });
    const rows = [];
    for await (const page of rig.context.ledger.rows(outcome.id)) rows.push(...page);
    const skipped = rows.find((r) => r.status === 'skipped');
    expect(skipped).toMatchObject({ row: 2, errorCode: 'TEMPLATE_LANGUAGE_MISSING' });
    expect(skipped?.errorDetail).toContain('"de_DE"');
    expect(skipped?.errorDetail).toContain('approved in en_US, pt_BR');
  });

  it('a fallback the template has no approved translation in → refused before a row is read', async () => {
    const error = await send({ language: 'fr_FR' }, [`${phoneNumber(9)},Ann,A-9,en_US`]).then(
      () => undefined,
      (e: unknown) => e as { code?: string; message?: string },
    );
    expect(error?.code).toBe('TEMPLATE_MAPPING_INVALID');
    expect(error?.message).toContain('no approved fr_FR translation to fall back to');
    expect(rig.sandbox.accepted()).toHaveLength(0);
  });
});
