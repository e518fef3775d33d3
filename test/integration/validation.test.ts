import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CloudApiClient } from '../../src/cloud-api/cloud-api-client.js';
import { Secret } from '../../src/config/secret.js';
import { SendProcessor } from '../../src/campaigns/send/send-processor.js';
import { silentLogger } from '../../src/logging/logger.js';
import { startSendWorker, type RunningSendWorker } from '../../src/queue/send-worker.js';
import { loadTemplatesFile, startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import type { AppContext } from '../../src/app/app-context.js';
import { runSend, type SendOptions } from '../../src/cli/run/send.js';
import { summaryText } from '../../src/cli/format.js';
import { testContext } from '../support/app-context.js';
import { tempDir } from '../support/csv-files.js';
import { SAMPLE_TEMPLATES } from '../support/pipeline.js';
import { freshPrefix } from '../support/redis.js';

const PHONE_NUMBER_ID = '106540352242922';
const TOKEN = 'validation-token';

/**
 * Every kind of bad row is caught by the producer with a reason naming
 * the row, the column and the rule; none of them reaches the API; Excel exports read right;
 * a mapping that does not fit the template is refused before any job exists.
 */
describe('pre-flight validation, end to end', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let sandbox: Sandbox;
  let context: AppContext;
  let worker: RunningSendWorker | undefined;
  let client: CloudApiClient;
  let completed: Map<string, () => void>;

  beforeEach(async () => {
    dir = await tempDir();
    sandbox = await startSandbox({ templates: await loadTemplatesFile(SAMPLE_TEMPLATES), accessToken: TOKEN, messagesPerSecond: 0 });
    context = testContext(freshPrefix('validation'), {
      REPORTS_DIR: join(dir.dir, 'reports'),
      WHATSAPP_PHONE_NUMBER_ID: PHONE_NUMBER_ID,
      TEMPLATES_FILE: SAMPLE_TEMPLATES,
      SEND_RATE: '0',
    });
    client = new CloudApiClient({ baseUrl: sandbox.url, apiVersion: 'v23.0', accessToken: new Secret(TOKEN), timeoutMs: 5000 });
    completed = new Map();
  });

  afterEach(async () => {
    await worker?.close();
    worker = undefined;
    await client.close();
    await context.close();
    await sandbox.close();
    await dir.cleanup();
  });

  function startWorker(): void {
    const processor = new SendProcessor({
      ledger: context.ledger,
      sender: client,
      logger: silentLogger(),
      onCampaignCompleted: (id) => completed.get(id)?.(),
    });
    worker = startSendWorker({
      connection: context.redis,
      prefix: context.config.queuePrefix,
      phoneNumberId: PHONE_NUMBER_ID,
      rate: 0,
      concurrency: 20,
      processor,
      ledger: context.ledger,
      logger: silentLogger(),
      attempts: 3,
      backoffMs: 50,
    });
  }

  function completion(id: string): Promise<void> {
    return new Promise((resolve) => completed.set(id, resolve));
  }

  const send = (file: string, options: Partial<SendOptions> & { campaign: string }) =>
    runSend(context, {
      file,
      template: 'order_update',
      language: 'en_US',
      phoneColumn: 'phone',
      params: ['first_name', 'order_id'],
      ...options,
    });

  it('rejects one row of each kind with its row, column and rule, and sends none of them', async () => {
    const file = join(dir.dir, 'mixed.csv');
    const lines = [
      'phone,first_name,order_id', //                         line 1
      '+4915110000001,Ana,A-1', //                            row 1, valid
      '+4915110000002,Bruno,A-2', //                          row 2, valid
      ',Carla,A-3', //                                        row 3, PHONE_MISSING
      '+1234,Dan,A-4', //                                     row 4, PHONE_INVALID
      '+4915110000005,,A-5', //                               row 5, VALUE_EMPTY
      '+4915110000006,"Two\nLines",A-6', //                   row 6 (lines 7–8), VALUE_LINE_BREAK
      '+4915110000007,Tab\tName,A-7', //                      row 7 (line 9), VALUE_TAB
      '+4915110000008,Too      spaced,A-8', //                row 8, VALUE_SPACES
      `+4915110000009,${'x'.repeat(1100)},A-9`, //            row 9, BODY_TOO_LONG
      '+4915110000001,AnaAgain,A-10', //                      row 10, DUPLICATE_PHONE (skipped)
      '+4915110000011,Only,Three,Extra', //                   row 11, FIELD_COUNT
      '+4915110000012,Eve,A-12', //                           row 12, valid
      '+4915110000013,"Bruno" Costa,A-13', //                     row 13 (line 15), MALFORMED_RECORD
    ];
    await writeFile(file, lines.join('\n') + '\n');
    const done = completion('c-mixed');
    startWorker();
    const outcome = await send(file, { campaign: 'c-mixed' });

    expect(outcome).toMatchObject({ rows: 13, valid: 3, queued: 3, rejected: 9, skipped: 1 });
    expect(outcome.byReason).toEqual({
      PHONE_MISSING: 1,
      PHONE_INVALID: 1,
      VALUE_EMPTY: 1,
      VALUE_LINE_BREAK: 1,
      VALUE_TAB: 1,
      VALUE_SPACES: 1,
      BODY_TOO_LONG: 1,
      DUPLICATE_PHONE: 1,
      FIELD_COUNT: 1,
      MALFORMED_RECORD: 1,
    });
    await done;

    // The rejects file: one line per refused row, naming the row, the line, the column and the rule.
    expect(outcome.rejectsFile).toBe(join(dir.dir, 'reports', 'c-mixed.rejects.csv'));
    const text = await readFile(outcome.rejectsFile ?? '', 'utf8');
    expect(text.split('\n')[0]).toBe('row,phone,reason');
    const rejects = parse<{ row: string; phone: string; reason: string }>(text, { columns: true });
    const byRow = new Map(rejects.map((r) => [Number(r.row), r.reason]));
    expect([...byRow.keys()]).toEqual([3, 4, 5, 6, 7, 8, 9, 10, 11, 13]);
    expect(byRow.get(5)).toMatch(/VALUE_EMPTY: line 6: column "first_name"/);
    expect(byRow.get(6)).toMatch(/VALUE_LINE_BREAK: line 7: column "first_name"/);
    expect(byRow.get(7)).toMatch(/VALUE_TAB: line 9: column "first_name"/);
    expect(byRow.get(8)).toMatch(/VALUE_SPACES: line 10: column "first_name"/);
    expect(byRow.get(9)).toMatch(/BODY_TOO_LONG: line 11: .*1024/);
    expect(byRow.get(10)).toMatch(/DUPLICATE_PHONE: line 12: same number as row 1/);
    expect(byRow.get(11)).toMatch(/FIELD_COUNT: line 13:/);
    expect(byRow.get(13)).toMatch(/MALFORMED_RECORD: line 15:/);

    // Nothing refused reached the API: exactly the three valid rows did.
    const accepted = sandbox.accepted();
    expect(accepted.map((m) => m.to).sort()).toEqual(['+4915110000001', '+4915110000002', '+4915110000012']);
    const first = accepted.find((m) => m.to === '+4915110000001')?.body as { template: { components: unknown[] } };
    expect(first.template.components).toEqual([
      {
        type: 'body',
        parameters: [
          { type: 'text', text: 'Ana' },
          { type: 'text', text: 'A-1' },
        ],
      },
    ]);
    expect((await context.ledger.status('c-mixed'))?.state).toBe('completed');
  });

  it('reads an Excel export: BOM, CRLF, semicolons, quoted line breaks, local numbers with --default-country', async () => {
    const file = join(dir.dir, 'excel.csv');
    const rows = [
      'Telefon;first_name;order_id;Adresse',
      '0151 10000001;Zoë 😀;A-1;"Hauptstraße 1\r\n10115 Berlin"',
      '+49 151 10000002;Łukasz;"A;2";"Rue 2"',
      '',
      '015110000003;東京;A-3;""',
    ];
    await writeFile(file, '\uFEFF' + rows.join('\r\n') + '\r\n');
    const done = completion('c-excel');
    startWorker();
    const outcome = await send(file, { campaign: 'c-excel', phoneColumn: 'Telefon', defaultCountry: 'DE' });
    expect(outcome).toMatchObject({ rows: 3, valid: 3, rejected: 0, skipped: 0, delimiter: ';' });
    await done;
    const sent = new Map(
      sandbox.accepted().map((m) => {
        const body = m.body as { template: { components: { parameters: { text: string }[] }[] } };
        return [m.to, body.template.components[0]?.parameters.map((p) => p.text)];
      }),
    );
    expect(sent).toEqual(
      new Map([
        ['+4915110000001', ['Zoë 😀', 'A-1']],
        ['+4915110000002', ['Łukasz', 'A;2']],
        ['+4915110000003', ['東京', 'A-3']],
      ]),
    );
  });

  it('refuses a mapping that does not fit the template before any campaign or job exists', async () => {
    const file = join(dir.dir, 'ok.csv');
    await writeFile(file, 'phone,first_name,order_id\n+4915110000001,Ana,A-1\n');
    // order_update takes two variables; shipping_update needs a header and a button column; winter_clearance is paused.
    await expect(send(file, { campaign: 'c-bad1', params: ['first_name'] })).rejects.toMatchObject({ code: 'TEMPLATE_MAPPING_INVALID' });
    // Each required slot left unfilled names its shorthand flag first, then --param.
    await expect(
      send(file, { campaign: 'c-bad2', template: 'shipping_update', params: ['first_name', 'order_id', 'order_id'] }),
    ).rejects.toMatchObject({
      code: 'TEMPLATE_SLOT_UNFILLED',
      message: expect.stringMatching(
        new RegExp(
          String.raw`header\.1 \(header variable \{\{1\}\}\) is required and no column fills it: ` +
            String.raw`give --header-text-column, or map it with --param header\.1=COLUMN[\s\S]*` +
            String.raw`button\.0\.url \(the end of button 0's link\) is required and no column fills it: ` +
            String.raw`give --button-url-column, or map it with --param button\.0\.url=COLUMN[\s\S]*Nothing was enqueued`,
        ),
      ) as unknown,
    });
    await expect(send(file, { campaign: 'c-bad3', template: 'winter_clearance', params: ['first_name'] })).rejects.toThrow(/PAUSED/);
    await expect(send(file, { campaign: 'c-bad4', language: 'de' })).rejects.toThrow(
      /no de translation; it exists in en_US \(APPROVED\), pt_BR \(APPROVED\)/,
    );
    expect(await context.ledger.listCampaigns()).toEqual([]);
    const keys = await context.redis.keys(`${context.config.queuePrefix}:send-*`);
    expect(keys).toEqual([]);
  });

  it('fills a text header and a URL button, percent-encoded, as the API expects', async () => {
    const file = join(dir.dir, 'shipping.csv');
    await writeFile(file, 'phone,order,name,carrier,eta,tracking\n+4915110000001,A-7,Ana,DHL,tomorrow,AB 12/ü\n');
    const done = completion('c-ship');
    startWorker();
    await send(file, {
      campaign: 'c-ship',
      template: 'shipping_update',
      params: ['name', 'carrier', 'eta'],
      headerTextColumn: 'order',
      buttonUrlColumn: ['tracking'],
    });
    await done;
    const body = sandbox.accepted()[0]?.body as { template: { components: unknown[] } };
    expect(body.template.components).toEqual([
      { type: 'header', parameters: [{ type: 'text', text: 'A-7' }] },
      {
        type: 'body',
        parameters: [
          { type: 'text', text: 'Ana' },
          { type: 'text', text: 'DHL' },
          { type: 'text', text: 'tomorrow' },
        ],
      },
      { type: 'button', sub_type: 'url', index: '0', parameters: [{ type: 'text', text: 'AB%2012/%C3%BC' }] },
    ]);
  });

  it(
    'a MARKETING template skips recipients recorded as opted out (131050), saying where it ' +
      'was learnt; a UTILITY template still reaches them',
    async () => {
      await context.ledger.recordOptOut(PHONE_NUMBER_ID, '+4915110000002', { campaignId: 'c-earlier', row: 7 });
      const promo = join(dir.dir, 'promo.csv');
      await writeFile(
        promo,
        'phone,name,discount,banner\n+4915110000001,Ana,25%,https://example.com/a.jpg\n' +
          '+4915110000002,Bruno,25%,https://example.com/b.jpg\n+4915110000002,Bruno,30%,https://example.com/b.jpg\n',
      );
      const outcome = await send(promo, {
        campaign: 'c-promo',
        template: 'spring_promo',
        params: ['name', 'discount'],
        headerImageColumn: 'banner',
        // The banner's link is an example one: sent as the link, as Meta would fetch it.
        mediaBy: 'link',
        dryRun: true,
      });
      // Both of Bruno's rows say why (the second is not a "duplicate of the one sent": none was).
      expect(outcome).toMatchObject({ rows: 3, valid: 1, queued: 1, skipped: 2, byReason: { OPTED_OUT: 2 } });
      const rejects = parse<{ row: string; reason: string }>(await readFile(outcome.rejectsFile ?? '', 'utf8'), { columns: true });
      expect(rejects.map((r) => r.row)).toEqual(['2', '3']);
      expect(rejects[0]?.reason).toMatch(
        /^OPTED_OUT: line 3: the recipient stopped marketing messages .*campaign c-earlier row 7 on \d{4}-\d\d-\d\d.*MARKETING/,
      );

      const utility = join(dir.dir, 'utility.csv');
      await writeFile(utility, 'phone,first_name,order_id\n+4915110000002,Bruno,A-2\n');
      expect(await send(utility, { campaign: 'c-utility', dryRun: true })).toMatchObject({ rows: 1, valid: 1, skipped: 0 });
    },
  );

  it('the OPTED_OUT summary names where each opt-out came from: 131050, a keyword, user_preferences, an operator', async () => {
    const now = Date.now();
    await context.ledger.recordOptOut(PHONE_NUMBER_ID, '+4915110000001', { campaignId: 'c-earlier', row: 7 });
    await context.ledger.applyInbound([
      { phoneNumberId: PHONE_NUMBER_ID, waId: '4915110000002', wamid: 'wamid.in-stop', at: now, optOut: true },
    ]);
    await context.ledger.applyPreferences([{ phoneNumberId: PHONE_NUMBER_ID, waId: '4915110000003', value: 'stop', at: now }]);
    await context.ledger.addOptOut(PHONE_NUMBER_ID, '+4915110000004');
    const promo = join(dir.dir, 'origins.csv');
    const rows = [1, 2, 3, 4, 5].map((n) => `+491511000000${n},Name${n},25%,https://example.com/${n}.jpg`);
    await writeFile(promo, ['phone,name,discount,banner', ...rows].join('\n') + '\n');
    const outcome = await send(promo, {
      campaign: 'c-origins',
      template: 'spring_promo',
      params: ['name', 'discount'],
      headerImageColumn: 'banner',
      // The banner's link is an example one: sent as the link, as Meta would fetch it.
      mediaBy: 'link',
      dryRun: true,
    });
    expect(outcome).toMatchObject({
      valid: 1,
      skipped: 4,
      byReason: { OPTED_OUT: 4 },
      optedOutBy: { '131050': 1, keyword: 1, user_preferences: 1, operator: 1 },
    });
    const line =
      summaryText(outcome, 0)
        .split('\n')
        .find((l) => l.includes('OPTED_OUT')) ?? '';
    expect(line).toContain('1: Meta answered 131050 to an earlier send');
    expect(line).toContain('1: they answered with an opt-out keyword');
    expect(line).toContain('1: they stopped marketing messages in WhatsApp (user_preferences)');
    expect(line).toContain('1: an operator added them');
  });

  it('a dry run checks every row and writes no campaign and no job', async () => {
    const file = join(dir.dir, 'dry.csv');
    await writeFile(file, 'phone,first_name,order_id\n+4915110000001,Ana,A-1\n+4915110000002,,A-2\n+4915110000001,Ana,A-3\n');
    const outcome = await send(file, { campaign: 'c-dry', dryRun: true });
    expect(outcome).toMatchObject({
      dryRun: true,
      rows: 3,
      valid: 1,
      rejected: 1,
      skipped: 1,
      byReason: { VALUE_EMPTY: 1, DUPLICATE_PHONE: 1 },
    });
    expect(await context.ledger.listCampaigns()).toEqual([]);
    expect(await context.redis.keys(`${context.config.queuePrefix}:send-*`)).toEqual([]);
  });
});
