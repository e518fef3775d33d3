import { describe, expect, it } from 'vitest';
import { campaignLabel } from '../../src/campaigns/campaign.js';
import { checkCampaignName, nameOfFile, nameSlug, reportFileName } from '../../src/campaigns/campaign-name.js';
import { statusJson } from '../../src/app/views/status-view.js';
import { statusText } from '../../src/cli/format.js';
import { campaignPage } from '../../src/dashboard/campaign-page.js';
import { campaignsPage } from '../../src/dashboard/campaigns-page.js';
import { campaignView } from '../../src/dashboard/campaign-view.js';
import { reportDisposition } from '../../src/http/report-download.js';
import type { CampaignDefinition } from '../../src/campaigns/campaign.js';
import { detailOf, extrasOf, statusOf, tallyOf } from './dashboard-fixtures.js';

const FORMULA = '=HYPERLINK("http://evil.example/?x","Click")';
const MARKUP = '<img src=x onerror="alert(1)"> & \'quotes\'';

/** A stored text campaign's definition, with the name given (none: as stored before names existed). */
function definitionOf(name?: string): CampaignDefinition {
  return {
    id: 'c20261125-1747-07ac19',
    ...(name === undefined ? {} : { name }),
    createdAt: Date.UTC(2026, 10, 25),
    phoneNumberId: '106540352242922',
    text: { body: 'Hi {{name}}', columns: ['name'], previewUrl: false },
    source: { file: 'spring-promo.csv', phoneColumn: 'phone', fixWhitespace: false },
  };
}

describe('a campaign name, checked at the edge', () => {
  it('is trimmed and taken up to 100 characters (as a reader counts them: an emoji is one)', () => {
    expect(checkCampaignName('  Spring promo  ', '--name')).toBe('Spring promo');
    expect(checkCampaignName('é'.repeat(100), '--name')).toHaveLength(100);
    expect(checkCampaignName('🎉'.repeat(100), '--name')).toBe('🎉'.repeat(100));
    expect(checkCampaignName('Ação de Natal — Ünïcode', '--name')).toBe('Ação de Natal — Ünïcode');
    expect(checkCampaignName('two     spaces', 'name')).toBe('two     spaces');
    // A formula is text like any other: it is never evaluated here, and files and pages quote or escape it.
    expect(checkCampaignName(FORMULA, '--name')).toBe(FORMULA);
  });

  it.each([
    ['101 characters', 'x'.repeat(101), 'the campaign name has 101 characters; give at most 100'],
    ['empty', '', 'the campaign name is empty or only spaces and invisible characters'],
    ['only invisible characters', '\u200b\u200d', 'the campaign name is empty or only spaces and invisible characters'],
  ])('refuses a name %s with OPTION_INVALID naming the field', (_label, name, text) => {
    expect(refusal(name)).toMatchObject({ code: 'OPTION_INVALID', message: `name: ${text}` });
  });

  it.each([
    ['NUL', 'a\u0000b', 'a control character, invisible in most editors (U+0000 NUL at character 2)'],
    ['a C1 control', 'a\u009bb', 'a control character, invisible in most editors (U+009B CSI at character 2)'],
    ['an isolate', '\u2066x\u2069', 'a bidirectional override or isolate, which can disguise text (U+2066 LRI at character 1)'],
    ['a tab', 'a\tb', 'a tab; use a space (U+0009 TAB at character 2)'],
    ['a line separator', 'a\u2028b', 'a line break; give it on one line (U+2028 LINE SEPARATOR at character 2)'],
  ])('refuses a name with %s by the operator-text rule, naming the field, never echoing the name', (_label, name, text) => {
    expect(refusal(name)).toMatchObject({ code: 'TEXT_CONTROL_CHARACTER', message: `name: the campaign name contains ${text}` });
  });
});

function refusal(name: string): unknown {
  try {
    checkCampaignName(name, 'name');
  } catch (caught) {
    return caught;
  }
  return undefined;
}

describe("a campaign's default name: its file's", () => {
  it('is the file name without its extension, whatever the directory', () => {
    expect(nameOfFile('/data/exports/spring-promo.csv')).toBe('spring-promo');
    expect(nameOfFile('crm.2026-11-25.CSV')).toBe('crm.2026-11-25');
    expect(nameOfFile('recipients')).toBe('recipients');
  });

  it('keeps nothing a name may not hold, and is undefined when nothing is left', () => {
    expect(nameOfFile('/tmp/a\u001b[31mb\u202e.csv')).toBe('a [31mb');
    expect(nameOfFile(`${'n'.repeat(150)}.csv`)).toBe('n'.repeat(100));
    expect(nameOfFile('/tmp/\u0007.csv')).toBeUndefined();
    expect(nameOfFile('.csv')).toBe('.csv');
  });
});

describe("a name in the report's file name", () => {
  it('is a slug of lower-case ASCII letters, digits and single hyphens, at most 40 characters', () => {
    expect(nameSlug('Spring Promo 2026!')).toBe('spring-promo-2026');
    expect(nameSlug('Ação de Natal — Ünïcode')).toBe('acao-de-natal-unicode');
    expect(nameSlug(FORMULA)).toBe('hyperlink-http-evil-example-x-click');
    expect(nameSlug('../../etc/passwd')).toBe('etc-passwd');
    expect(nameSlug('a'.repeat(39) + ' b')).toBe('a'.repeat(39));
    expect(nameSlug('発送のお知らせ')).toBe('');
    expect(nameSlug('ﬁle')).toBe('file');
  });

  it('keeps the ID first; the ID alone without a name, with a name that leaves no slug, or one that is the ID', () => {
    expect(reportFileName('c20261125-1747-07ac19', 'Spring promo')).toBe('c20261125-1747-07ac19-spring-promo.csv');
    expect(reportFileName('c20261125-1747-07ac19', undefined)).toBe('c20261125-1747-07ac19.csv');
    expect(reportFileName('c20261125-1747-07ac19', '発送')).toBe('c20261125-1747-07ac19.csv');
    expect(reportFileName('rep-out', 'rep-out')).toBe('rep-out.csv');
    for (const name of [FORMULA, MARKUP, '../../x', 'a/b\\c:d*e?f"g<h>i|j']) {
      expect(reportFileName('c1', name)).toMatch(/^c1(-[a-z0-9]+(-[a-z0-9]+)*)?\.csv$/);
    }
  });

  it("is the dashboard download's file name too", () => {
    expect(reportDisposition('c20261125-1747-07ac19', 'Spring promo')).toBe(
      'attachment; filename="c20261125-1747-07ac19-spring-promo.csv"',
    );
    expect(reportDisposition('c1', MARKUP)).toBe('attachment; filename="c1-img-src-x-onerror-alert-1-quotes.csv"');
    expect(reportDisposition('c1')).toBe('attachment; filename="c1.csv"');
  });
});

describe('status and list show the name; a campaign stored without one shows its ID alone', () => {
  it('status --json has `name`, null without one', () => {
    const status = statusOf('c20261125-1747-07ac19');
    expect(statusJson(status, undefined, definitionOf('Spring promo')).name).toBe('Spring promo');
    expect(statusJson(status, undefined, definitionOf(FORMULA)).name).toBe(FORMULA);
    expect(statusJson(status, undefined, definitionOf()).name).toBeNull();
    expect(statusJson(status).name).toBeNull();
  });

  it('the text names it after its ID on the first line', () => {
    const status = statusOf('c20261125-1747-07ac19');
    expect(statusText(status, undefined, definitionOf('Spring promo')).split('\n')[0]).toBe(
      'Campaign c20261125-1747-07ac19 "Spring promo": running',
    );
    expect(statusText(status, undefined, definitionOf()).split('\n')[0]).toBe('Campaign c20261125-1747-07ac19: running');
    expect(campaignLabel('c1', FORMULA)).toBe(`c1 "${FORMULA}"`);
  });
});

describe('the pages show the name, escaped', () => {
  const status = statusOf('c20261125-1747-07ac19');

  it('the list links the name, the ID under it; without a name, the ID', () => {
    const named = campaignsPage([campaignView(status, extrasOf({ name: MARKUP }))], 0).value;
    expect(named).not.toContain('<img');
    expect(named).toContain(
      '<a href="/campaigns/c20261125-1747-07ac19" class="name">&lt;img src=x onerror=&quot;alert(1)&quot;&gt; &amp; &#39;quotes&#39;</a>' +
        '<div class="sub">c20261125-1747-07ac19</div>',
    );
    const bare = campaignsPage([campaignView(status, extrasOf())], 0).value;
    expect(bare).toContain('<a href="/campaigns/c20261125-1747-07ac19">c20261125-1747-07ac19</a>');
  });

  it("the campaign's page has the name as its heading and title, the ID beside it", () => {
    const page = campaignPage({ detail: detailOf(status, extrasOf({ name: MARKUP }), tallyOf([])), csrfToken: 't' }).value;
    expect(page).not.toContain('<img');
    expect(page).toContain('<h1>&lt;img src=x onerror=&quot;alert(1)&quot;&gt; &amp; &#39;quotes&#39; <span class="state">');
    expect(page).toContain('<title>Campaign &lt;img src=x onerror=&quot;alert(1)&quot;&gt; &amp; &#39;quotes&#39; (c20261125-1747-07ac19)');
    expect(page).toContain('<dt>Campaign ID</dt><dd>c20261125-1747-07ac19</dd>');
    const bare = campaignPage({ detail: detailOf(status, extrasOf(), tallyOf([])), csrfToken: 't' }).value;
    expect(bare).toContain('<h1>c20261125-1747-07ac19 <span class="state">');
  });
});
