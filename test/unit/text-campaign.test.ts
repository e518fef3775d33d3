import { describe, expect, it } from 'vitest';
import {
  ROW_STATUSES,
  campaignDefinitionSchema,
  type CampaignCounts,
  type CampaignDefinition,
  type CampaignStatus,
} from '../../src/campaigns/campaign.js';
import { resolveColumns, textColumns } from '../../src/campaigns/ingest/column-mapping.js';
import { messageFingerprint, textMessageFingerprint } from '../../src/campaigns/ingest/message-fingerprint.js';
import { checkTextRow, type TextRowRules } from '../../src/campaigns/ingest/row-check.js';
import { MAX_TEXT_CHARS, textValueProblem, valueProblem } from '../../src/campaigns/parameter-rules.js';
import { messageForRow } from '../../src/campaigns/send/message-for-row.js';
import { fillText, filledTextLength, parseTextBody, planText, type TextPlan } from '../../src/campaigns/text-plan.js';
import { statusJson } from '../../src/app/views/status-view.js';
import { statusText } from '../../src/cli/format.js';
import { messageBody } from '../../src/cloud-api/message-body.js';
import { AppError } from '../../src/errors/app-error.js';
import { phoneNumber } from '../support/csv-files.js';
import { UNIT_NUMBER, orderUpdateDefinition } from '../support/unit-campaigns.js';
import { CLI_FIELD_NAMES } from '../../src/campaigns/spec/field-names.js';

/**
 * Text campaigns (`campaign send FILE --text "Hi {{name}}…"`), below the ledger: the text's
 * placeholders, the value rules for free text, the 4,096 limit, the message the worker
 * builds, the duplicate guard's fingerprint and the stored definition. (The producer's
 * WINDOW_CLOSED pre-flight, on the ledger: test/integration/text-campaign-windows.test.ts.)
 */

const HEADER = ['phone', 'name', 'order_id', 'note'];
const BODY = 'Hi {{name}}, your order {{order_id}} has shipped. Thanks, {{ name }}!';

function refusal(fn: () => unknown): AppError {
  try {
    fn();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

function textDefinition(id: string, text: TextPlan): CampaignDefinition {
  return { id, createdAt: 0, phoneNumberId: UNIT_NUMBER, text, source: { file: 'c.csv', phoneColumn: 'phone', fixWhitespace: false } };
}

describe('--text: placeholders', () => {
  it('names each column once, in order of first use; spaces inside the braces are ignored', () => {
    expect(parseTextBody(BODY, CLI_FIELD_NAMES['text.body'])).toStrictEqual(['name', 'order_id']);
    expect(parseTextBody('Hallo {{ Vorname }} – {{Bestell Nr}}', CLI_FIELD_NAMES['text.body'])).toStrictEqual(['Vorname', 'Bestell Nr']);
    expect(parseTextBody('No placeholder at all', CLI_FIELD_NAMES['text.body'])).toStrictEqual([]);
  });

  it('line breaks and tabs are fine in the text itself', () => {
    expect(parseTextBody('Hi {{name}},\n\tyour order is on its way.\r\nBye', CLI_FIELD_NAMES['text.body'])).toStrictEqual(['name']);
  });

  it.each([
    ['an empty text', '', /--text is empty/],
    ['a text of spaces', '   \n ', /--text is empty/],
    ['invisible characters only', '\u200b\u2060', /only spaces and invisible characters/],
    ['an empty placeholder', 'Hi {{}}!', /no column name at character 4/],
    ['a placeholder of spaces', 'Hi {{  }}!', /no column name at character 4/],
    ['an unclosed placeholder', 'Hi {{name, your order', /stray "\{\{" at character 4/],
    ['a stray closing pair', 'Hi name}}, hello {{name}}', /stray "\}\}" at character 8/],
    ['a placeholder split by a line break', 'Hi {{na\nme}}', /stray "\{\{" at character 4/],
    ['an ESC', 'Hi {{name}}\u001b[31m', /control character.*U\+001B ESC at character 12/],
    ['a right-to-left override', 'Invoice\u202Etxt.exe {{name}}', /bidirectional.*U\+202E RLO at character 8/],
    ['a fixed part over 4,096', `${'x'.repeat(4097)} {{name}}`, /4,098 characters without its placeholders; Meta allows 4,096/],
  ])('%s is OPTION_INVALID before any file is read', (_label, body, said) => {
    const error = refusal(() => parseTextBody(body, CLI_FIELD_NAMES['text.body']));
    expect(error.code).toBe('OPTION_INVALID');
    expect(error.message).toMatch(said);
  });

  it('a placeholder the header lacks refuses the file, naming it, a near column, and the columns found', () => {
    const error = refusal(() => planText('Hi {{Name}}, order {{order}}', false, HEADER, 'people.csv', CLI_FIELD_NAMES['text.body']));
    expect(error.code).toBe('CSV_HEADER_INVALID');
    expect(error.message).toContain('people.csv');
    expect(error.message).toContain('{{Name}} (did you mean {{name}}?), {{order}} name no column');
    expect(error.message).toContain('Columns found: "phone", "name", "order_id", "note"');
    expect(error.message).toContain('nothing was enqueued');
  });

  it('the plan keeps the body as given, the columns, and --preview-url', () => {
    expect(planText(BODY, true, HEADER, 'c.csv', CLI_FIELD_NAMES['text.body'])).toStrictEqual({
      body: BODY,
      previewUrl: true,
      columns: ['name', 'order_id'],
    });
  });

  it('fills every occurrence, and its length is the filled string’s UTF-16 length (an emoji counts 2)', () => {
    const plan = planText(BODY, false, HEADER, 'c.csv', CLI_FIELD_NAMES['text.body']);
    const values = ['Ana 🎉', 'A-1'];
    const filled = fillText(plan, values);
    expect(filled).toBe('Hi Ana 🎉, your order A-1 has shipped. Thanks, Ana 🎉!');
    expect(filledTextLength(plan, values)).toBe(filled.length);
    expect(filled.length).toBe([...filled].length + 2);
  });
});

describe('--text: value rules (textValueProblem against valueProblem)', () => {
  it.each([
    ['a line break (LF, CRLF, U+2028)', 'line one\nline two\r\nthree\u2028four', 'VALUE_LINE_BREAK'],
    ['a tab', 'a\tb', 'VALUE_TAB'],
    ['a run of spaces', 'a      b', 'VALUE_SPACES'],
  ])('%s: refused in a template variable, allowed in a text', (_label, value, templateRule) => {
    expect(valueProblem(value)).toBe(templateRule);
    expect(textValueProblem(value)).toBeUndefined();
  });

  it.each([
    ['empty', '', 'VALUE_EMPTY'],
    ['invisible only', '\u200b\u200d', 'VALUE_EMPTY'],
    ['an ESC, even after a line break', 'a\n\u001b[2J', 'VALUE_CONTROL_CHAR'],
    ['a NUL', 'a\u0000b', 'VALUE_CONTROL_CHAR'],
    ['a right-to-left override', 'Invoice\u202Etxt.exe', 'VALUE_BIDI_CONTROL'],
    ['an isolate', 'a\u2066b', 'VALUE_BIDI_CONTROL'],
  ])('%s: refused in both', (_label, value, rule) => {
    expect(textValueProblem(value)).toBe(rule);
    expect(valueProblem(value)).toBeDefined();
  });
});

describe('--text: a row', () => {
  const plan = planText('Hi {{name}}: {{note}}', false, HEADER, 'c.csv', CLI_FIELD_NAMES['text.body']);
  const rules: TextRowRules = {
    text: plan,
    mapping: resolveColumns(HEADER, textColumns(plan), 'phone', 'c.csv', CLI_FIELD_NAMES['csv.phoneColumn']),
  };
  const fixed = 'Hi : '.length;

  it('takes the recipient and the placeholders’ values, in the plan’s column order; a multi-line note stays multi-line', () => {
    expect(checkTextRow(['+49 151 10000001', 'Ana', 'A-1', ' first\nsecond '], rules)).toStrictEqual({
      ok: true,
      to: '+4915110000001',
      country: 'DE',
      values: ['Ana', 'first\nsecond'],
      headerLink: undefined,
    });
  });

  it('a filled text of exactly 4,096 characters passes; one more is TEXT_TOO_LONG with its length', () => {
    const note = 'x'.repeat(MAX_TEXT_CHARS - fixed - 3);
    expect(checkTextRow([phoneNumber(1), 'Ana', 'A-1', note], rules)).toMatchObject({ ok: true });
    expect(checkTextRow([phoneNumber(1), 'Ana', 'A-1', `${note}x`], rules)).toStrictEqual({
      ok: false,
      phone: phoneNumber(1),
      reason: 'TEXT_TOO_LONG',
      detail: "the text with this row's values is 4,097 characters, Meta allows 4,096; shorten the values",
    });
  });

  it('counts UTF-16 code units: 4,096 characters made of emoji is too long at 2,049 emoji', () => {
    const emoji = (n: number) => '😀'.repeat(n);
    const room = MAX_TEXT_CHARS - fixed - 3;
    expect(checkTextRow([phoneNumber(1), 'Ana', 'A-1', emoji(room / 2)], rules)).toMatchObject({ ok: true });
    expect(checkTextRow([phoneNumber(1), 'Ana', 'A-1', `${emoji(room / 2)}x`], rules)).toMatchObject({
      ok: false,
      reason: 'TEXT_TOO_LONG',
    });
  });

  it.each([
    ['an empty value', ['Ana', 'A-1', '  '], 'VALUE_EMPTY', /column "note" \(\{\{note\}\} in the text\) is empty/],
    ['an ESC', ['Ana', 'A-1', 'a\u001bb'], 'VALUE_CONTROL_CHAR', /column "note" .*U\+001B ESC at character 2/],
    ['a bidi override', ['An\u202Ea', 'A-1', 'n'], 'VALUE_BIDI_CONTROL', /column "name" /],
  ])('%s rejects the row with the template rule’s code', (_label, cells, reason, detail) => {
    const verdict = checkTextRow([phoneNumber(1), ...cells], rules);
    expect(verdict).toMatchObject({ ok: false, reason });
    if (!verdict.ok) expect(verdict.detail).toMatch(detail);
  });

  it('a column the text does not name is not checked (the order ID may be empty)', () => {
    expect(checkTextRow([phoneNumber(1), 'Ana', '', 'n'], rules)).toMatchObject({ ok: true });
  });

  it('the recipient is checked as for a template', () => {
    expect(checkTextRow(['12', 'Ana', 'A-1', 'n'], rules)).toMatchObject({ ok: false, reason: 'PHONE_INVALID' });
    expect(checkTextRow(['', 'Ana', 'A-1', 'n'], rules)).toMatchObject({ ok: false, reason: 'PHONE_MISSING' });
  });
});

describe('--text: the message the worker builds', () => {
  const definition = textDefinition('txt1', planText(BODY, true, HEADER, 'c.csv', CLI_FIELD_NAMES['text.body']));
  const row = { campaignId: 'txt1', row: 7, to: '+14155550123', values: ['Ana', 'A-1'] };

  it('is a text message with the filled body, preview_url and the callback data, as reference §1.3 shows it', () => {
    const built = messageForRow(definition, row);
    expect(built).toStrictEqual({
      ok: true,
      message: {
        kind: 'text',
        to: '+14155550123',
        body: 'Hi Ana, your order A-1 has shipped. Thanks, Ana!',
        previewUrl: true,
        callbackData: 'txt1/7',
      },
    });
    if (!built.ok) return;
    expect(messageBody(built.message)).toStrictEqual({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: '+14155550123',
      type: 'text',
      text: { preview_url: true, body: 'Hi Ana, your order A-1 has shipped. Thanks, Ana!' },
      biz_opaque_callback_data: 'txt1/7',
    });
  });

  it.each([
    ['a missing value', { values: ['Ana'] }, /row has 1 values, the text takes 2/],
    ['a value with an ESC', { values: ['Ana\u001b', 'A-1'] }, /\{\{name\}\} breaks the text rules \(VALUE_CONTROL_CHAR\)/],
    ['an empty value', { values: ['Ana', ''] }, /\{\{order_id\}\} breaks the text rules \(VALUE_EMPTY\)/],
    ['a body over 4,096', { values: ['Ana', 'x'.repeat(4096)] }, /4,1\d\d characters, Meta allows 4,096/],
  ])('%s (a hand-edited row) is never sent', (_label, change, detail) => {
    const built = messageForRow(definition, { ...row, ...change });
    expect(built.ok).toBe(false);
    if (!built.ok) expect(built.detail).toMatch(detail);
  });
});

describe('--text: the duplicate guard’s fingerprint', () => {
  const plan = planText('Hi {{name}}', false, HEADER, 'c.csv', CLI_FIELD_NAMES['text.body']);

  it('is the filled text and the recipient: equal words match, whatever the placeholder; other words or recipients do not', () => {
    const fp = textMessageFingerprint(plan, '+4915110000001', ['Ana']);
    expect(fp).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(
      textMessageFingerprint(planText('Hi {{note}}', true, HEADER, 'c.csv', CLI_FIELD_NAMES['text.body']), '+4915110000001', ['Ana']),
    ).toBe(fp);
    expect(textMessageFingerprint(plan, '+4915110000001', ['Bo'])).not.toBe(fp);
    expect(textMessageFingerprint(plan, '+4915110000002', ['Ana'])).not.toBe(fp);
    expect(messageFingerprint({ name: 'text', language: 'Hi Ana' }, '+4915110000001', [], undefined)).not.toBe(fp);
  });
});

describe('the stored definition', () => {
  it('a campaign stored before text campaigns (a plan, no text field) still loads unchanged', () => {
    const old = JSON.parse(JSON.stringify(orderUpdateDefinition('old1'))) as Record<string, unknown>;
    expect(old).not.toHaveProperty('text');
    expect(campaignDefinitionSchema.parse(old)).toStrictEqual(old);
  });

  it('a text campaign round-trips; one with both or neither is refused', () => {
    const text = textDefinition('t1', planText(BODY, false, HEADER, 'c.csv', CLI_FIELD_NAMES['text.body']));
    expect(campaignDefinitionSchema.parse(JSON.parse(JSON.stringify(text)))).toStrictEqual(text);
    const plan = orderUpdateDefinition('x').plan;
    expect(campaignDefinitionSchema.safeParse({ ...text, plan }).success).toBe(false);
    expect(campaignDefinitionSchema.safeParse({ ...text, text: undefined }).success).toBe(false);
  });

  it('status shows what it sends: kind, template and language, or text', () => {
    const counts = { total: 0, delivered: 0, read: 0, ...Object.fromEntries(ROW_STATUSES.map((s) => [s, 0])) } as CampaignCounts;
    const status: CampaignStatus = {
      id: 't1',
      state: 'ingesting',
      priority: 'normal',
      counts,
      createdAt: 0,
      finishedAt: undefined,
      pausedReason: undefined,
      pausedAt: undefined,
      ingestInterrupted: false,
      purgedAt: undefined,
      startsAt: undefined,
      startDeadline: undefined,
      expiresAt: undefined,
      startedAt: undefined,
      cancelReason: undefined,
    };
    const text = textDefinition('t1', planText(BODY, false, HEADER, 'c.csv', CLI_FIELD_NAMES['text.body']));
    expect(statusJson(status, undefined, text)).toMatchObject({ kind: 'text', template: null, language: null });
    expect(statusJson(status, undefined, orderUpdateDefinition('t1'))).toMatchObject({
      kind: 'template',
      template: 'order_update',
      language: 'en_US',
    });
    expect(statusJson(status)).toMatchObject({ kind: null, template: null });
    expect(statusText(status, undefined, text).split('\n')[1]).toBe(
      '  sends text "Hi {{name}}, your order {{order_id}} has shipped. Thanks, {…"',
    );
    expect(statusText(status, undefined, orderUpdateDefinition('t1')).split('\n')[1]).toBe('  sends template order_update (en_US)');
  });
});
