import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AppContext } from '../../src/app/app-context.js';
import { runSend } from '../../src/cli/run/send.js';
import { buildTemplateRegistry } from '../../src/app/templates.js';
import { RedisTemplateInfo } from '../../src/redis/templates/redis-template-info.js';
import { loadTemplatesFile, startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { testContext } from '../support/app-context.js';
import { tempDir } from '../support/csv-files.js';
import { SAMPLE_TEMPLATES } from '../support/pipeline.js';
import { freshPrefix } from '../support/redis.js';
import { waitFor } from '../support/waiting.js';
import { WebhookService } from '../support/webhook-service.js';
import { writeFile } from 'node:fs/promises';

const PHONE_NUMBER_ID = '106540352242922';
const SECRET = 'template-category-secret-0123';

/**
 * Meta moves a template to another category (`template_category_update`) and rates its quality
 * (`message_template_quality_update`): the sandbox posts both, signed, to the webhook service,
 * whose consumer records them; the next campaign of that template is planned with the category
 * Meta has now. order_update is UTILITY in the catalogue, so it reaches US numbers, until Meta
 * makes it MARKETING: then those rows are skipped as MARKETING_US_PAUSED.
 */
describe('template category and quality webhooks (webhook service, sandbox, ingest)', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let sandbox: Sandbox;
  let context: AppContext;
  let service: WebhookService;

  beforeEach(async () => {
    dir = await tempDir();
    service = new WebhookService(SECRET);
    const relay = await service.relay();
    sandbox = await startSandbox({
      templates: await loadTemplatesFile(SAMPLE_TEMPLATES),
      accessToken: 'token',
      webhooks: { url: relay, appSecret: SECRET },
    });
    const prefix = freshPrefix('tpl-category');
    context = testContext(prefix, {
      REPORTS_DIR: join(dir.dir, 'reports'),
      WHATSAPP_PHONE_NUMBER_ID: PHONE_NUMBER_ID,
      TEMPLATES_FILE: SAMPLE_TEMPLATES,
    });
    await service.start(prefix, context.ledger);
  });

  afterEach(async () => {
    await service.close();
    await sandbox.close();
    await context.close();
    await dir.cleanup();
  });

  async function dryRun(campaignId: string) {
    const file = join(dir.dir, 'orders.csv');
    await writeFile(file, 'phone,first_name,order_id\n+12125550101,Ana,A-1\n+4915110000003,Carla,A-2\n+13125550104,Dan,A-3\n');
    return runSend(context, {
      file,
      template: 'order_update',
      language: 'en_US',
      phoneColumn: 'phone',
      params: ['first_name', 'order_id'],
      campaign: campaignId,
      dryRun: true,
    });
  }

  it('a template moved to MARKETING is planned as marketing: its US rows skipped; the list shows its category and quality', async () => {
    expect(await dryRun('before')).toMatchObject({ rows: 3, valid: 3, skipped: 0 });

    const answer = await fetch(`${sandbox.url}/_sandbox/template-quality`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'order_update', language: 'en_US', quality: 'YELLOW', category: 'MARKETING' }),
    });
    expect(await answer.json()).toEqual({
      name: 'order_update',
      language: 'en_US',
      quality: 'YELLOW',
      category: 'MARKETING',
      webhook: 'posted',
    });
    const infos = new RedisTemplateInfo(context.redis, context.config.queuePrefix);
    const info = await waitFor(() => infos.of('order_update', 'en_US'), {
      what: 'both template webhooks recorded',
      until: (i) => i?.category !== undefined && i.quality !== undefined,
    });
    expect(info).toMatchObject({
      quality: { value: 'YELLOW', previous: 'UNKNOWN' },
      category: { value: 'MARKETING', previous: 'UTILITY' },
    });

    expect(await dryRun('after')).toMatchObject({ rows: 3, valid: 1, skipped: 2, byReason: { MARKETING_US_PAUSED: 2 } });
    const registry = buildTemplateRegistry(context);
    try {
      expect((await registry.find('order_update', 'en_US')).template).toMatchObject({
        category: 'MARKETING',
        quality_score: { score: 'YELLOW' },
      });
      // Only that language moved.
      expect((await registry.find('order_update', 'pt_BR')).template?.category).toBe('UTILITY');
    } finally {
      await registry.close();
    }
  });
});
