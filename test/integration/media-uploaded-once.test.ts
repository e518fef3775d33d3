import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createCampaignDeps } from '../../src/app/create-campaign-deps.js';
import { sendCampaign } from '../../src/app/send-campaign.js';
import { buildTemplateRegistry } from '../../src/app/templates.js';
import { FLAG_FIELD_NAMES } from '../../src/campaigns/spec/field-names.js';
import { phoneNumber } from '../support/csv-files.js';
import { PHONE_NUMBER_ID, SAMPLE_TEMPLATES } from '../support/pipeline.js';
import { startSendRig, type SendRig } from '../support/send-rig.js';
import { waitFor } from '../support/waiting.js';
import { mediaBytes } from '../unit/media/media-bytes.js';
import { MediaServer } from './media/media-server.js';

/**
 * Media uploaded once: a campaign of 1,000 rows whose image header names 3 distinct links
 * fetches each link once and uploads it once on its number (the sandbox counts the uploads),
 * and all 1,000 messages carry one of the 3 media IDs, never a link. The same file sent from a
 * second number uploads the 3 again there (an ID is valid only on the number that uploaded it),
 * and fetches them again (a campaign reads its own media).
 */
const ROWS = 1000;
const SECOND_NUMBER = '106540352242923';

describe('media uploaded once per number (real Redis, worker, sandbox and a local media host)', () => {
  const media = new MediaServer();
  let rig: SendRig;

  beforeAll(async () => {
    await media.start();
    for (const name of ['a', 'b', 'c', 'dry']) media.file(`/${name}.png`, mediaBytes.png(2048), 'image/png');
  });
  afterAll(async () => {
    await media.close();
  });
  beforeEach(async () => {
    rig = await startSendRig('media-once', { MEDIA_ALLOW_PRIVATE_HOSTS: '1' }, { phoneNumberIds: [PHONE_NUMBER_ID, SECOND_NUMBER] });
  });
  afterEach(async () => {
    await rig.close();
  });

  async function sendFrom(number: string, file: string): Promise<string> {
    const deps = {
      ...createCampaignDeps(rig.context),
      openTemplates: () => buildTemplateRegistry(rig.context, { file: SAMPLE_TEMPLATES }),
    };
    const outcome = await sendCampaign(deps, {
      flags: { template: 'spring_promo', language: 'en_US', phoneNumberId: number, params: ['name', 'off'], headerImageColumn: 'banner' },
      names: FLAG_FIELD_NAMES,
      file,
    });
    expect(outcome).toMatchObject({ queued: ROWS, rejected: 0 });
    await rig.startWorker();
    await waitFor(() => rig.context.ledger.status(outcome.id), {
      what: `campaign ${outcome.id} completed`,
      until: (s) => s?.state === 'completed',
      timeoutMs: 30_000,
    });
    return outcome.id;
  }

  it('1,000 rows with 3 image links: 3 fetches, 3 uploads on the number, 1,000 sends by media ID', async () => {
    const file = join(rig.dir, 'thousand.csv');
    const rows = Array.from({ length: ROWS }, (_, i) => `${phoneNumber(i + 1)},${media.url(`/${'abc'[i % 3]}.png`)},Name${i},25%`);
    await writeFile(file, ['phone,banner,name,off', ...rows].join('\n') + '\n');

    const first = await sendFrom(PHONE_NUMBER_ID, file);
    expect((await rig.context.ledger.status(first))?.counts).toMatchObject({ sent: ROWS, failed: 0 });
    expect(['/a.png', '/b.png', '/c.png'].map((path) => media.hits.get(path))).toEqual([1, 1, 1]);
    expect(rig.sandbox.stats().mediaUploads).toEqual({ [PHONE_NUMBER_ID]: 3 });

    const sent = rig.sandbox.accepted();
    expect(sent).toHaveLength(ROWS);
    const images = sent.map((m) => {
      const header = (m.body as { template: { components: { type: string; parameters: { image: Record<string, string> }[] }[] } }).template
        .components[0];
      expect(header?.type).toBe('header');
      return header?.parameters[0]?.image;
    });
    // Every header names a media ID (no link), and there are exactly 3 of them, one per link.
    expect(images.every((image) => image !== undefined && Object.keys(image).join() === 'id')).toBe(true);
    expect(new Set(images.map((image) => image?.id)).size).toBe(3);

    // The same file from the second number: its own 3 uploads; the first number's stay 3.
    await sendFrom(SECOND_NUMBER, file);
    expect(rig.sandbox.stats().mediaUploads).toEqual({ [PHONE_NUMBER_ID]: 3, [SECOND_NUMBER]: 3 });
    expect(rig.sandbox.accepted()).toHaveLength(2 * ROWS);
  });

  it('a dry run reads and checks each link once and uploads nothing', async () => {
    const file = join(rig.dir, 'dry.csv');
    const link = media.url('/dry.png');
    await writeFile(
      file,
      ['phone,banner,name,off', `${phoneNumber(1)},${link},Ana,25%`, `${phoneNumber(2)},${link},Bo,25%`].join('\n') + '\n',
    );
    const deps = {
      ...createCampaignDeps(rig.context),
      openTemplates: () => buildTemplateRegistry(rig.context, { file: SAMPLE_TEMPLATES }),
    };
    const outcome = await sendCampaign(deps, {
      flags: { template: 'spring_promo', language: 'en_US', params: ['name', 'off'], headerImageColumn: 'banner', dryRun: true },
      names: FLAG_FIELD_NAMES,
      file,
    });
    expect(outcome).toMatchObject({ dryRun: true, valid: 2, rejected: 0 });
    expect(media.hits.get('/dry.png')).toBe(1);
    expect(rig.sandbox.stats().mediaUploads).toEqual({});
  });

  it('local files (headerFileColumn): read beside the CSV, uploaded once, sent by ID; a path out of its folder is refused', async () => {
    await mkdir(join(rig.dir, 'banners'));
    await writeFile(join(rig.dir, 'banners', 'spring.png'), mediaBytes.png(4096));
    const file = join(rig.dir, 'files.csv');
    const rows = [
      `${phoneNumber(1)},banners/spring.png,Ana,25%`,
      `${phoneNumber(2)},./banners/spring.png,Bo,25%`,
      `${phoneNumber(3)},../secret.png,Cy,25%`,
    ];
    await writeFile(file, ['phone,banner,name,off', ...rows].join('\n') + '\n');
    const deps = {
      ...createCampaignDeps(rig.context),
      openTemplates: () => buildTemplateRegistry(rig.context, { file: SAMPLE_TEMPLATES }),
    };
    const outcome = await sendCampaign(deps, {
      flags: { template: 'spring_promo', language: 'en_US', params: ['name', 'off'], headerFileColumn: 'banner' },
      names: FLAG_FIELD_NAMES,
      file,
    });
    expect(outcome).toMatchObject({ queued: 2, rejected: 1, byReason: { HEADER_FILE_INVALID: 1 } });
    await rig.startWorker();
    await waitFor(() => rig.context.ledger.status(outcome.id), { what: 'completed', until: (s) => s?.state === 'completed' });
    expect(rig.sandbox.stats().mediaUploads).toEqual({ [PHONE_NUMBER_ID]: 1 });
    const ids = rig.sandbox
      .accepted()
      .map((m) => JSON.stringify((m.body as { template: { components: unknown[] } }).template.components[0]));
    expect(new Set(ids).size).toBe(1);
    expect(ids[0]).toMatch(/^\{"type":"header","parameters":\[\{"type":"image","image":\{"id":"\d+"\}\}\]\}$/);
  });
});

describe('media links are fetched from public addresses only (MEDIA_ALLOW_PRIVATE_HOSTS unset)', () => {
  const media = new MediaServer();
  let rig: SendRig;

  beforeAll(async () => {
    await media.start();
    media.file('/a.png', mediaBytes.png(), 'image/png');
  });
  afterAll(async () => {
    await media.close();
  });
  beforeEach(async () => {
    rig = await startSendRig('media-private');
  });
  afterEach(async () => {
    await rig.close();
  });

  it('a link to a loopback address is refused MEDIA_UNREACHABLE, naming the address; the host is never asked', async () => {
    const file = join(rig.dir, 'private.csv');
    await writeFile(file, ['phone,banner,name,off', `${phoneNumber(1)},${media.url('/a.png')},Ana,25%`].join('\n') + '\n');
    const deps = {
      ...createCampaignDeps(rig.context),
      openTemplates: () => buildTemplateRegistry(rig.context, { file: SAMPLE_TEMPLATES }),
    };
    const outcome = await sendCampaign(deps, {
      flags: { template: 'spring_promo', language: 'en_US', params: ['name', 'off'], headerImageColumn: 'banner' },
      names: FLAG_FIELD_NAMES,
      file,
    });
    expect(outcome).toMatchObject({ queued: 0, rejected: 1, byReason: { MEDIA_UNREACHABLE: 1 } });
    const rows = [];
    for await (const page of rig.context.ledger.rows(outcome.id)) rows.push(...page);
    expect(rows[0]?.errorDetail).toContain('127.0.0.1');
    expect(media.hits.size).toBe(0);
    expect(rig.sandbox.stats().mediaUploads).toEqual({});
  });
});
