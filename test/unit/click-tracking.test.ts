import { describe, expect, it } from 'vitest';
import { clickDestination, clickUrlDetail } from '../../src/clicks/click-destination.js';
import { trackedColumns } from '../../src/clicks/click-plan.js';
import { trackedButtonSlot } from '../../src/clicks/click-template.js';
import { isClickToken, newClickToken } from '../../src/clicks/click-token.js';
import { checkRow } from '../../src/campaigns/ingest/row-check.js';
import { resolveColumns } from '../../src/campaigns/ingest/column-mapping.js';
import { planSend } from '../../src/campaigns/send-plan.js';
import { CLI_FIELD_NAMES, FLAG_FIELD_NAMES } from '../../src/campaigns/spec/field-names.js';
import { requirementsOf } from '../../src/templates/template-requirements.js';
import { messageTemplateSchema } from '../../src/templates/template-schema.js';
import { refusalOf } from '../support/refusal.js';
import { campaignCharts } from '../../src/dashboard/campaign-charts.js';
import { campaignFigures } from '../../src/metrics/campaign-figures.js';
import { statusText } from '../../src/cli/format.js';
import { statusOf } from './dashboard-fixtures.js';

/**
 * Click tracking's refusals and rules that need no Redis: the template's button must point at
 * PUBLIC_URL/c/, the destination column must be in the file and fill nothing else, each row's
 * destination must be an http(s) URL, and tokens are random, URL-safe and 128 bits.
 */
const PUBLIC_URL = 'https://links.example.com';

/** A positional template with a body {{1}} and these URL buttons (a quick reply first, so a URL button's index is not 0). */
function withButtons(...urls: string[]) {
  return requirementsOf(
    messageTemplateSchema.parse({
      name: 'order_tracked',
      language: 'en_US',
      status: 'APPROVED',
      category: 'UTILITY',
      components: [
        { type: 'BODY', text: 'Hi {{1}}, your order has shipped.' },
        {
          type: 'BUTTONS',
          buttons: [{ type: 'QUICK_REPLY', text: 'Stop' }, ...urls.map((url, i) => ({ type: 'URL', text: `Link ${i}`, url }))],
        },
      ],
    }),
  );
}

describe('the tracked button (trackedButtonSlot)', () => {
  it('is the URL button at PUBLIC_URL/c/{{1}}, by its slot; another URL button beside it is left as it is', () => {
    const template = withButtons('https://shop.example.com/p/{{1}}', `${PUBLIC_URL}/c/{{1}}`);
    expect(trackedButtonSlot(template, PUBLIC_URL, '--track-clicks')).toBe('button.2.url');
    // A host in capitals is the same address.
    expect(trackedButtonSlot(withButtons('https://LINKS.example.com/c/{{1}}'), PUBLIC_URL, '--track-clicks')).toBe('button.1.url');
  });

  it('refuses without PUBLIC_URL, saying what to set', () => {
    const error = refusalOf(() => trackedButtonSlot(withButtons(`${PUBLIC_URL}/c/{{1}}`), undefined, '--track-clicks'));
    expect(error.code).toBe('CLICK_TRACKING_INVALID');
    expect(error.message).toMatch(/^--track-clicks needs PUBLIC_URL: the public address `serve` answers at/);
  });

  it('refuses a button that points elsewhere, saying where it points and where it should', () => {
    const error = refusalOf(() => trackedButtonSlot(withButtons('https://track.example.com/{{1}}'), PUBLIC_URL, 'trackClicks'));
    expect(error.code).toBe('CLICK_TRACKING_INVALID');
    expect(error.message).toContain('button 1 links to https://track.example.com/');
    expect(error.message).toContain(`a tracked link's base URL is ${PUBLIC_URL}/c/ (PUBLIC_URL/c/)`);
    // A button under PUBLIC_URL but not its click path, or with more after the variable, is not the tracked one either.
    for (const url of [`${PUBLIC_URL}/{{1}}`, `${PUBLIC_URL}/c/{{1}}/x`, `${PUBLIC_URL}/c/x{{1}}`, 'https://links.example.org/c/{{1}}'])
      expect(refusalOf(() => trackedButtonSlot(withButtons(url), PUBLIC_URL, 'trackClicks')).code, url).toBe('CLICK_TRACKING_INVALID');
  });

  it('refuses a template with no URL button with a dynamic suffix', () => {
    const error = refusalOf(() => trackedButtonSlot(withButtons('https://shop.example.com/sale'), PUBLIC_URL, '--track-clicks'));
    expect(error.message).toContain('has no URL button with a dynamic suffix; its link must be https://links.example.com/c/{{1}}');
  });
});

describe('the destination column (trackedColumns)', () => {
  const template = withButtons(`${PUBLIC_URL}/c/{{1}}`);
  const clicks = { slot: 'button.1.url', column: 'link' };

  it('fills the tracked button from the destination column', () => {
    const columns = trackedColumns({ params: ['name'] }, template, clicks, ['phone', 'name', 'link'], CLI_FIELD_NAMES);
    expect(columns).toStrictEqual({ params: ['name'], paramColumns: { 'button.1.url': 'link' } });
    const plan = planSend(template, ['phone', 'name', 'link'], columns, CLI_FIELD_NAMES);
    expect(plan.slots.map((slot) => [slot.name, slot.column])).toStrictEqual([
      ['body.1', 'name'],
      ['button.1.url', 'link'],
    ]);
  });

  it('refuses a file without the column, naming the option and the columns found', () => {
    const error = refusalOf(() => trackedColumns({ params: ['name'] }, template, clicks, ['phone', 'name'], CLI_FIELD_NAMES));
    expect(error.code).toBe('CLICK_TRACKING_INVALID');
    expect(error.message).toBe(
      `the header has no column "link" (--click-url-column), the destination of each row's tracked link. Columns found: ` +
        '"phone", "name". Nothing was enqueued.',
    );
    expect(refusalOf(() => trackedColumns({}, template, clicks, ['phone'], FLAG_FIELD_NAMES)).message).toContain('(clickUrlColumn)');
  });

  it('refuses another option filling the tracked button: its value is the token', () => {
    const header = ['phone', 'name', 'link', 'code'];
    for (const columns of [{ paramColumns: { 'button.1.url': 'code' } }, { buttonUrlColumns: ['code'] }]) {
      const error = refusalOf(() => trackedColumns(columns, template, clicks, header, CLI_FIELD_NAMES));
      expect(error.code).toBe('CLICK_TRACKING_INVALID');
      expect(error.message).toMatch(/fills button\.1\.url, the tracked button, whose suffix is each row's click token/);
    }
  });
});

describe("a row's destination", () => {
  const template = withButtons(`${PUBLIC_URL}/c/{{1}}`);
  const header = ['phone', 'name', 'link'];
  const plan = planSend(template, header, { params: ['name'], paramColumns: { 'button.1.url': 'link' } }, CLI_FIELD_NAMES);
  const mapping = resolveColumns(header, plan, 'phone', 'f.csv', '--phone-column');
  const check = (link: string) => checkRow(['+4915112345678', 'Ana', link], { plan, mapping, clickSlot: 'button.1.url' });

  it('is kept as the parser writes it, in the tracked slot (the ingest puts the token there)', () => {
    expect(check('https://shop.example.com/p/1?utm=wa')).toMatchObject({
      ok: true,
      values: ['Ana', 'https://shop.example.com/p/1?utm=wa'],
    });
    // Never a space or line break in a Location header: the parser's form encodes them.
    expect(clickDestination('https://shop.example.com/a b')).toBe('https://shop.example.com/a%20b');
    expect(clickDestination('HTTP://Shop.example.com')).toBe('http://shop.example.com/');
  });

  it('is rejected as CLICK_URL_INVALID when it is not an http(s) URL: every row gets an answer', () => {
    for (const link of ['', 'shop.example.com/p/1', 'javascript:alert(1)', 'ftp://example.com/x', `https://e.com/${'x'.repeat(2100)}`]) {
      expect(check(link), link).toMatchObject({ ok: false, reason: 'CLICK_URL_INVALID' });
    }
    expect(clickUrlDetail('', 'link')).toMatch(/column "link" is empty/);
    expect(clickUrlDetail('nope', 'link')).toMatch(/column "link": "nope" is not an http:\/\/ or https:\/\/ URL/);
  });
});

describe('tokens', () => {
  it('are 128 random bits in base64url (22 characters), each new', () => {
    const tokens = Array.from({ length: 1000 }, () => newClickToken());
    expect(new Set(tokens).size).toBe(1000);
    for (const token of tokens) expect(isClickToken(token), token).toBe(true);
    expect(Buffer.from(tokens[0]!, 'base64url')).toHaveLength(16);
    for (const bad of ['', 'short', `${tokens[0]!}x`, '../../etc/passwd', 'AAAAAAAAAAAAAAAAAAAAA='])
      expect(isClickToken(bad), bad).toBe(false);
  });
});

describe('clicks where a campaign is shown: the funnel, the metrics, status', () => {
  const counts = { total: 10, sent: 10, delivered: 8, read: 5, replied: 1 };
  const timeline = (clicked?: number) => ({
    buckets: [],
    counts: { sent: 10, delivered: 8, read: 5, failed: 0, replied: 1, ...(clicked === undefined ? {} : { clicked }) },
    now: Date.UTC(2026, 11, 1),
  });

  it('a campaign that tracks clicks shows clicked (0 included); one that does not shows none', () => {
    const tracked = statusOf('c', { finishedAt: undefined }, { ...counts, clicked: 3 });
    const untracked = statusOf('c', {}, counts);
    expect(campaignCharts(tracked, timeline(3), undefined).funnel.at(-1)).toStrictEqual({ stage: 'clicked', rows: 3 });
    expect(campaignCharts(tracked, timeline(0), undefined).funnel.at(-1)).toStrictEqual({ stage: 'clicked', rows: 0 });
    expect(campaignCharts(untracked, timeline(), undefined).funnel.map((s) => s.stage)).not.toContain('clicked');
    const figures = (status: typeof tracked) =>
      campaignFigures({ status, phoneNumberId: '1', windowed: false }, Date.UTC(2026, 11, 1), 3_600_000, { configuredRate: 80 })?.rows;
    expect(figures(tracked)?.get('clicked')).toBe(3);
    expect(figures(untracked)?.has('clicked')).toBe(false);
    expect(statusText(tracked)).toContain('sent 10 (delivered 8, read 5, replied 1, clicked 3)');
    expect(statusText(untracked)).toContain('sent 10 (delivered 8, read 5, replied 1)');
  });
});
