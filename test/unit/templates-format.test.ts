import { describe, expect, it } from 'vitest';
import { templateListing, templateView, templatesJson } from '../../src/app/views/template-view.js';
import { templatesText } from '../../src/cli/format-templates.js';
import type { MessageTemplate } from '../../src/templates/template-schema.js';

const positional: MessageTemplate = {
  name: 'order_update',
  language: 'en_US',
  status: 'APPROVED',
  category: 'UTILITY',
  parameter_format: 'POSITIONAL',
  components: [
    { type: 'HEADER', format: 'TEXT', text: 'Order {{1}}' },
    { type: 'BODY', text: 'Hi {{2}}, order {{1}} has shipped.' },
    { type: 'FOOTER', text: 'Thanks' },
  ],
};

const named: MessageTemplate = {
  name: 'appointment_reminder_named',
  language: 'pt_BR',
  status: 'APPROVED',
  category: 'UTILITY',
  parameter_format: 'NAMED',
  components: [{ type: 'BODY', text: 'Olá {{first_name}}, {{appointment_time}} ({{first_name}})' }],
};

const imageAndButton: MessageTemplate = {
  name: 'spring_promo',
  language: 'en_US',
  status: 'APPROVED',
  category: 'MARKETING',
  parameter_format: 'POSITIONAL',
  components: [
    { type: 'HEADER', format: 'IMAGE' },
    { type: 'BODY', text: 'Hi {{1}}, {{2}} off.' },
    {
      type: 'BUTTONS',
      buttons: [
        { type: 'QUICK_REPLY', text: 'Stop' },
        { type: 'URL', text: 'Shop', url: 'https://shop.example.com/?c={{1}}' },
        { type: 'URL', text: 'Home', url: 'https://shop.example.com/' },
      ],
    },
  ],
};

const paused: MessageTemplate = {
  name: 'old_promo',
  language: 'en_US',
  status: 'PAUSED',
  parameter_format: 'POSITIONAL',
  components: [{ type: 'BODY', text: 'No variables here.' }],
};

describe('templateView: the variables a send must fill', () => {
  it('positional: a text header variable and body variables in number order', () => {
    expect(templateView(positional).variables).toEqual(['header {{1}}', 'body {{1}} {{2}}']);
  });

  it('named: body variables by name, each once, in order of appearance', () => {
    const view = templateView(named);
    expect(view.parameterFormat).toBe('NAMED');
    expect(view.variables).toEqual(['body {{first_name}} {{appointment_time}}']);
  });

  it('an image header needs a link; a URL button with a variable is named by its position', () => {
    const view = templateView(imageAndButton);
    expect(view.variables).toEqual(['header image link', 'body {{1}} {{2}}', 'button 1 url {{1}}']);
    expect(view.header).toEqual({ kind: 'media', format: 'IMAGE' });
    expect(view.urlButtons).toEqual([{ index: 1, variables: ['1'] }]);
  });

  it('a template without variables needs nothing; a missing category is null', () => {
    expect(templateView(paused)).toMatchObject({ variables: [], category: null, bodyVariables: [] });
  });
});

describe('templateListing', () => {
  const all = [imageAndButton, paused, named, positional, { ...positional, language: 'de' }];

  it('keeps APPROVED only by default, sorted by name then language, and counts the rest', () => {
    const listing = templateListing(all);
    expect(listing.shown.map((t) => `${t.name}/${t.language}`)).toEqual([
      'appointment_reminder_named/pt_BR',
      'order_update/de',
      'order_update/en_US',
      'spring_promo/en_US',
    ]);
    expect(listing.hidden).toBe(1);
  });

  it('keeps every status with all', () => {
    const listing = templateListing(all, { all: true });
    expect(listing.shown).toHaveLength(5);
    expect(listing.hidden).toBe(0);
  });
});

describe('templatesText', () => {
  const legend = 'Map a slot with --param SLOT=COLUMN; a slot marked ? is optional, = names the slot it is filled from.';

  it('prints an aligned table of each template’s kind and slots, a summary line and how to map a slot', () => {
    const text = templatesText(templateListing([imageAndButton, paused, named]));
    const lines = text.split('\n');
    expect(lines[0]).toMatch(/^NAME\s+LANGUAGE\s+STATUS\s+CATEGORY\s+KIND\s+FORMAT\s+SLOTS$/);
    expect(lines[1]).toMatch(
      /^appointment_reminder_named\s+pt_BR\s+APPROVED\s+UTILITY\s+standard\s+NAMED\s+body\.first_name body\.appointment_time$/,
    );
    // An optional slot is marked ?: the quick reply's payload.
    expect(lines[2]).toMatch(/^spring_promo\s+en_US\s+APPROVED\s+MARKETING\s+standard\s+POSITIONAL\s+/);
    expect(lines[2]).toMatch(/\s{2}header\.image body\.1 body\.2 button\.0\.payload\? button\.1\.url$/);
    // Columns line up: LANGUAGE, KIND and SLOTS start at the same offset on every row.
    for (const column of [/(LANGUAGE|pt_BR|en_US)/, /(KIND|standard)/, /(SLOTS|body\.first_name|header\.image)/]) {
      const offsets = lines.slice(0, 3).map((l) => l.search(column));
      expect(new Set(offsets).size).toBe(1);
    }
    expect(lines.slice(-2)).toStrictEqual(['2 approved templates (1 in other statuses; --all shows them)', legend]);
  });

  it('shows (none) and - for a template with no slots or category', () => {
    const text = templatesText(templateListing([paused], { all: true }));
    expect(text.split('\n')[1]).toMatch(/^old_promo\s+en_US\s+PAUSED\s+-\s+standard\s+POSITIONAL\s+\(none\)$/);
    expect(text.split('\n').slice(-2)).toStrictEqual(['1 template', legend]);
  });

  it('names a slot filled from another as SLOT=SOURCE, and the template’s kind', () => {
    const authentication: MessageTemplate = {
      name: 'verification_code',
      language: 'en_US',
      status: 'APPROVED',
      category: 'AUTHENTICATION',
      parameter_format: 'POSITIONAL',
      components: [
        { type: 'BODY', text: '*{{1}}* is your verification code.' },
        {
          type: 'BUTTONS',
          buttons: [{ type: 'URL', text: 'Copy code', url: 'https://www.whatsapp.com/otp/code/?otp_type=COPY_CODE&code=otp{{1}}' }],
        },
      ],
    };
    expect(templatesText(templateListing([authentication])).split('\n')[1]).toMatch(
      /^verification_code\s+en_US\s+APPROVED\s+AUTHENTICATION\s+authentication\s+POSITIONAL\s+body\.1 button\.0\.code=body\.1$/,
    );
  });

  it('says so when nothing is approved', () => {
    expect(templatesText(templateListing([paused]))).toBe('No approved templates (1 in other statuses; --all shows them)');
    expect(templatesText(templateListing([], { all: true }))).toBe('No templates');
  });
});

describe('templateView: what a page needs to show the message', () => {
  it('gives the approved texts, the buttons and how many values a send fills', () => {
    const view = templateView({ ...imageAndButton, quality_score: { score: 'GREEN' } });
    expect(view.parameterCount).toBe(4);
    expect(view.quality).toBe('GREEN');
    expect(view.preview).toStrictEqual({
      header: { format: 'IMAGE', text: null },
      body: 'Hi {{1}}, {{2}} off.',
      footer: null,
      buttons: [
        { type: 'QUICK_REPLY', text: 'Stop', url: null, phoneNumber: null },
        { type: 'URL', text: 'Shop', url: 'https://shop.example.com/?c={{1}}', phoneNumber: null },
        { type: 'URL', text: 'Home', url: 'https://shop.example.com/', phoneNumber: null },
      ],
    });
  });
});

describe('templatesJson', () => {
  it('prints one object per shown template', () => {
    const json = templatesJson(templateListing([positional, paused]));
    expect(json).toEqual([
      {
        name: 'order_update',
        language: 'en_US',
        status: 'APPROVED',
        category: 'UTILITY',
        parameterFormat: 'POSITIONAL',
        kind: 'standard',
        slots: [
          { name: 'header.1', kind: 'text', required: true, about: 'header variable {{1}}', sameAs: null },
          { name: 'body.1', kind: 'text', required: true, about: 'body variable {{1}}', sameAs: null },
          { name: 'body.2', kind: 'text', required: true, about: 'body variable {{2}}', sameAs: null },
        ],
        variables: ['header {{1}}', 'body {{1}} {{2}}'],
        header: { kind: 'text', text: 'Order {{1}}', variables: ['1'] },
        bodyVariables: ['1', '2'],
        urlButtons: [],
        parameterCount: 3,
        quality: null,
        preview: {
          header: { format: 'TEXT', text: 'Order {{1}}' },
          body: 'Hi {{2}}, order {{1}} has shipped.',
          footer: 'Thanks',
          buttons: [],
        },
      },
    ]);
  });
});
