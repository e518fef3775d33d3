import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { readCsvHead } from '../../src/csv/csv-head.js';
import type { CampaignChoice } from '../../src/dashboard/browser/campaign-choice.js';
import { guessPhoneColumn, suggestColumn } from '../../src/dashboard/browser/column-suggestions.js';
import { previewRows, renderTemplate, renderText } from '../../src/dashboard/browser/message-preview.js';
import { specOf } from '../../src/dashboard/browser/posted-spec.js';
import { rejectsByReason } from '../../src/dashboard/browser/rejects-by-reason.js';
import { slotsOf, suggestMapping } from '../../src/dashboard/browser/slot-choices.js';
import { templateModel, type TemplateInput } from '../../src/dashboard/browser/template-model.js';
import { campaignsPage } from '../../src/dashboard/campaigns-page.js';
import { newCampaignPage } from '../../src/dashboard/new-campaign-page.js';
import { retargetForm, sameMessageOf } from '../../src/dashboard/retarget-form.js';
import { SAMPLE_TEMPLATES } from '../support/pipeline.js';

/** The file's head from its text, as the page reads the chosen file's first bytes. */
const headOf = (text: string, maxRows: number, complete: boolean) => readCsvHead(new TextEncoder().encode(text), maxRows, complete);

async function sampleTemplate(name: string, language = 'en_US'): Promise<TemplateInput> {
  const list = JSON.parse(await readFile(SAMPLE_TEMPLATES, 'utf8')) as { data: { name: string; language: string }[] };
  const found = list.data.find((t) => t.name === name && t.language === language);
  if (found === undefined) throw new Error(`no sample template ${name} (${language})`);
  return found as TemplateInput;
}

describe('the New campaign page: reading the file', () => {
  it('reads the header and rows with quotes, CRLF, a BOM and another delimiter; a cut last record is left out', () => {
    const text = '\ufeffMobile;"First Name";Note\r\n+4915100000001;"Ana; Maria";"said ""hi""\nthen left"\r\n+4915100000002;Bo;x\r\n+49151';
    const head = headOf(text, 10, false);
    expect(head.delimiter).toBe(';');
    expect(head.header).toEqual(['Mobile', 'First Name', 'Note']);
    expect(head.rows).toEqual([
      { number: 1, values: ['+4915100000001', 'Ana; Maria', 'said "hi"\nthen left'] },
      { number: 2, values: ['+4915100000002', 'Bo', 'x'] },
    ]);
    expect(headOf('a,b\n1,2\n3,4', 10, true).rows.map((r) => r.values)).toEqual([
      ['1', '2'],
      ['3', '4'],
    ]);
    expect(headOf('a,b\n1,2\n3,4\n5,6\n', 2, true).rows).toHaveLength(2);
  });

  it('suggests columns by exact, case-insensitive, then normalised name; none when nothing matches', () => {
    const header = ['Order ID', 'first_NAME', 'first_name_x', 'Appointment'];
    expect(suggestColumn('order_id', header)).toBe('Order ID');
    expect(suggestColumn('first_name', header)).toBe('first_NAME');
    expect(suggestColumn('Appointment', header)).toBe('Appointment');
    expect(suggestColumn('appointment_time', header)).toBeNull();
  });

  it('guesses the phone column from phone, mobile, msisdn, whatsapp or number', () => {
    expect(guessPhoneColumn(['name', 'Mobile No'])).toBe('Mobile No');
    expect(guessPhoneColumn(['number', 'Phone'])).toBe('Phone');
    expect(guessPhoneColumn(['WhatsApp', 'name'])).toBe('WhatsApp');
    expect(guessPhoneColumn(['name', 'city'])).toBeNull();
  });
});

describe('the New campaign page: templates, preview and spec', () => {
  it('a named template: slots by name, suggestions, the bubble with the values, the spec with param', async () => {
    const model = templateModel(await sampleTemplate('appointment_reminder_named'));
    const header = ['Mobile', 'First Name', 'When'];
    const mapping = suggestMapping(model, header);
    expect(mapping).toEqual({ 'body.first_name': 'First Name', 'body.appointment_time': null });
    // A variable with no column yet is shown as itself, not as an empty gap.
    const unchosen = renderTemplate(model, mapping, header, ['+4915100000001', 'Ana', 'Monday 10:00']);
    expect(unchosen.body).toBe(
      'Hello Ana, this is a reminder of your appointment on {{appointment_time}}. Reply to this message to reschedule.',
    );
    mapping['body.appointment_time'] = 'When';
    const rendered = renderTemplate(model, mapping, header, ['+4915100000001', 'Ana', 'Monday 10:00']);
    expect(rendered.body).toBe('Hello Ana, this is a reminder of your appointment on Monday 10:00. Reply to this message to reschedule.');
    const choice: CampaignChoice = {
      kind: 'template',
      model,
      mapping,
      phoneColumn: 'Mobile',
      phoneNumberId: '1',
      name: 'x',
      priority: 'normal',
    };
    expect(specOf({ ...choice, delimiter: ',', hours: '09:00-20:00', validFor: '48h', at: '' })).toEqual({
      name: 'x',
      phoneNumberId: '1',
      priority: 'normal',
      template: 'appointment_reminder_named',
      language: 'en_US',
      phoneColumn: 'Mobile',
      param: { 'body.first_name': 'First Name', 'body.appointment_time': 'When' },
      validFor: '48h',
      window: '09:00-20:00',
    });
    const head = {
      delimiter: ',',
      header,
      rows: [
        ['', 'A', 'b'],
        ['+1', 'B', ''],
        ['+2', 'C', 'c'],
        ['+3', 'D', 'd'],
      ].map((values, i) => ({ number: i + 1, values })),
    };
    expect(previewRows(head, choice, [4], 5).map((r) => r.number)).toEqual([3]);
  });

  it('a positional template with a media header, footer and buttons: every slot by name, header link, button labels', async () => {
    const model = templateModel(await sampleTemplate('spring_promo'));
    expect(model.positional).toBe(true);
    expect(slotsOf(model).map((s) => [s.name, s.required])).toEqual([
      ['header.image', true],
      ['body.1', true],
      ['body.2', true],
      ['button.0.payload', false],
    ]);
    // Positional variables have no name to suggest a column by; the header's link goes by its slot's name.
    expect(suggestMapping(model, ['1', 'phone', 'Header Image'])).toEqual({
      'header.image': 'Header Image',
      'body.1': null,
      'body.2': null,
      'button.0.payload': null,
    });
    const mapping = { 'body.1': 'name', 'body.2': 'off', 'header.image': 'img', 'button.0.payload': null };
    const rendered = renderTemplate(model, mapping, ['phone', 'name', 'off', 'img'], ['+1', 'Ana', '25%', 'https://x/i.jpg']);
    expect(rendered).toEqual({
      header: { kind: 'media', format: 'IMAGE', url: 'https://x/i.jpg', filename: '' },
      offer: null,
      body: 'Hi Ana, our spring sale is on: 25% off everything until Sunday.',
      footer: 'Reply STOP to opt out',
      buttons: [{ type: 'QUICK_REPLY', text: 'Stop promotions' }],
      cards: [],
      products: null,
    });
    // One way for every slot: param by the slot's name; an optional slot left without a column is left out.
    const spec = specOf({ kind: 'template', model, mapping, phoneColumn: 'phone', delimiter: ';' });
    expect(spec).toEqual({
      template: 'spring_promo',
      language: 'en_US',
      phoneColumn: 'phone',
      param: { 'header.image': 'img', 'body.1': 'name', 'body.2': 'off' },
      delimiter: ';',
    });
  });

  it("the API's template shape (templates list --json): header text variable, URL button, preview texts", () => {
    const model = templateModel({
      name: 'shipping_update',
      language: 'en_US',
      status: 'APPROVED',
      category: 'UTILITY',
      parameterFormat: 'POSITIONAL',
      kind: 'standard',
      slots: [
        { name: 'header.1', kind: 'text', required: true, about: 'header variable {{1}}', sameAs: null },
        { name: 'body.1', kind: 'text', required: true, about: 'body variable {{1}}', sameAs: null },
        { name: 'body.2', kind: 'text', required: true, about: 'body variable {{2}}', sameAs: null },
        { name: 'button.0.payload', kind: 'payload', required: false, about: 'what a tap on "Stop" sends back', sameAs: null },
        { name: 'button.1.url', kind: 'url', required: true, about: "the end of button 1's link", sameAs: null },
      ],
      variables: ['header {{1}}', 'body {{1}} {{2}}', 'button 1 url {{1}}'],
      header: { kind: 'text', text: 'Order {{1}}', variables: ['1'] },
      bodyVariables: ['1', '2'],
      urlButtons: [{ index: 1, variables: ['1'] }],
      parameterCount: 4,
      quality: null,
      preview: {
        header: { format: 'TEXT', text: 'Order {{1}}' },
        body: 'Hi {{1}}, it ships {{2}}.',
        footer: 'Thanks',
        buttons: [
          { type: 'QUICK_REPLY', text: 'Stop', url: null, phoneNumber: null },
          { type: 'URL', text: 'Track', url: 'https://x.example/t/{{1}}', phoneNumber: null },
        ],
      },
    });
    expect(slotsOf(model).map((s) => s.name)).toEqual(['header.1', 'body.1', 'body.2', 'button.0.payload', 'button.1.url']);
    const mapping = { 'body.1': 'name', 'body.2': 'day', 'header.1': 'order', 'button.1.url': 'code' };
    const header = ['phone', 'name', 'day', 'order', 'code'];
    expect(renderTemplate(model, mapping, header, ['+1', 'Ana', 'today', 'A-1', 'zz'])).toEqual({
      header: { kind: 'text', text: 'Order A-1' },
      offer: null,
      body: 'Hi Ana, it ships today.',
      footer: 'Thanks',
      buttons: [
        { type: 'QUICK_REPLY', text: 'Stop' },
        { type: 'URL', text: 'Track' },
      ],
      cards: [],
      products: null,
    });
    expect(specOf({ kind: 'template', model, mapping, phoneColumn: 'phone' })).toEqual({
      template: 'shipping_update',
      language: 'en_US',
      phoneColumn: 'phone',
      param: { 'header.1': 'order', 'body.1': 'name', 'body.2': 'day', 'button.1.url': 'code' },
    });
  });

  it('a text: its {{column}} placeholders filled from the row; rows lacking one are not previewed', () => {
    const head = {
      delimiter: ',',
      header: ['phone', 'first name', 'code'],
      rows: [
        { number: 1, values: ['+1', '', 'a'] },
        { number: 2, values: ['+2', 'Bo', 'b'] },
      ],
    };
    const choice: CampaignChoice = { kind: 'text', text: 'Hi {{first name}}, code {{code}}', phoneColumn: 'phone', mapping: {} };
    expect(previewRows(head, choice, [], 5).map((r) => r.number)).toEqual([2]);
    expect(renderText('Hi {{first_name}}, code {{code}}', ['phone', 'first_name', 'code'], ['+2', 'Bo', 'b']).body).toBe('Hi Bo, code b');
    expect(specOf({ ...choice, phoneNumberId: '7' })).toEqual({
      text: 'Hi {{first name}}, code {{code}}',
      phoneColumn: 'phone',
      phoneNumberId: '7',
    });
  });

  it('groups refused rows by reason with a few examples', () => {
    const rejects = [1, 2, 3, 4].map((row) => ({
      row,
      reason: row === 2 ? ('PHONE_INVALID' as const) : ('VALUE_EMPTY' as const),
      detail: 'd',
    }));
    expect(rejectsByReason(rejects, 2).map((g) => [g.reason, g.rows, g.examples.length])).toEqual([
      ['VALUE_EMPTY', 3, 2],
      ['PHONE_INVALID', 1, 1],
    ]);
  });
});

describe('the New campaign page and the Retarget form as served', () => {
  it('the page holds its CSRF token and loads only its own scripts; the list links to it', () => {
    const page = newCampaignPage('123.abc').value;
    expect(page).toContain('data-csrf-token="123.abc"');
    expect([...page.matchAll(/<script[^>]*>/g)].map((m) => m[0])).toEqual([
      '<script src="/dashboard/live.js" defer>',
      '<script src="/dashboard/new-campaign.js" defer>',
    ]);
    expect(campaignsPage([], 0).value).toContain('<a class="button" href="/campaigns/new">New campaign</a>');
    // The cost's line says when its rates are the shipped example's: by its file name, never its path on the server.
    expect(page).toContain('data-example-rate-card="rate-card.example.csv"');
  });

  it('the Retarget form is offered on finished campaigns only, its values escaped', () => {
    expect(retargetForm({ id: 'c1', state: 'running' }, undefined, 't').value).toBe('');
    const same = sameMessageOf({ kind: 'text', text: { body: 'Hi "{{name}}"', previewUrl: false, columns: ['name'] } });
    const form = retargetForm({ id: '<b>', state: 'completed' }, same, 't"').value;
    expect(form).toContain('data-source="&lt;b&gt;"');
    expect(form).toContain('data-csrf-token="t&quot;"');
    expect(form).toContain(`data-same="{&quot;text&quot;:&quot;Hi \\&quot;{{name}}\\&quot;&quot;,&quot;previewUrl&quot;:false}"`);
    expect(form).toContain('<option value="delivered-not-read">');
    // Without its own message, there is no "the same" to choose.
    expect(retargetForm({ id: 'c1', state: 'cancelled' }, undefined, 't').value).not.toContain('the same</option>');
  });

  it("a retarget's same message: the source's template with the columns that filled each variable", () => {
    const base = { name: 'order_update', language: 'en_US', bodyText: '', slots: [] as never[] };
    const positional = sameMessageOf({
      kind: 'template',
      plan: {
        ...base,
        parameterFormat: 'POSITIONAL',
        slots: [
          { name: 'body.2', kind: 'text', component: 'body', variable: '2', column: 'Order' },
          { name: 'body.1', kind: 'text', component: 'body', variable: '1', column: 'Name' },
          { name: 'header.1', kind: 'text', component: 'header', variable: '1', column: 'Title' },
          { name: 'button.1.url', kind: 'url', subType: 'url', component: 'button', variable: '1', buttonIndex: 1, column: 'Link' },
        ],
        headerMedia: undefined,
      },
    });
    expect(positional).toEqual({
      template: 'order_update',
      language: 'en_US',
      param: { 'body.2': 'Order', 'body.1': 'Name', 'header.1': 'Title', 'button.1.url': 'Link' },
    });
    const named = sameMessageOf({
      kind: 'template',
      plan: {
        ...base,
        parameterFormat: 'NAMED',
        slots: [{ name: 'body.first_name', kind: 'text', component: 'body', variable: 'first_name', column: 'First Name' }],
      },
    });
    expect(named).toEqual({ template: 'order_update', language: 'en_US', param: { 'body.first_name': 'First Name' } });
    // An authentication code is mapped once (its button is filled from it); a language per row keeps its column.
    const otp = sameMessageOf({
      kind: 'template',
      plan: {
        ...base,
        parameterFormat: 'POSITIONAL',
        slots: [
          { name: 'language', kind: 'language', component: 'language', column: 'lang' },
          { name: 'body.1', kind: 'text', component: 'body', variable: '1', column: 'code' },
          { name: 'button.0.code', kind: 'text', component: 'button', buttonIndex: 0, subType: 'url', sameAs: 'body.1', column: 'code' },
        ],
      },
    });
    expect(otp).toEqual({ template: 'order_update', language: 'en_US', languageColumn: 'lang', param: { 'body.1': 'code' } });
  });
});
