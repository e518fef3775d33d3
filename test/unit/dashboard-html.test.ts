import { describe, expect, it } from 'vitest';
import { parseSendWindow } from '../../src/campaigns/feed/send-window.js';
import { campaignPage } from '../../src/dashboard/campaign-page.js';
import { campaignsPage } from '../../src/dashboard/campaigns-page.js';
import { campaignView } from '../../src/dashboard/campaign-view.js';
import { escapeHtml, html, SafeHtml } from '../../src/dashboard/html.js';
import { detailOf, extrasOf, statusOf, tallyOf } from './dashboard-fixtures.js';
import { CLI_FIELD_NAMES } from '../../src/campaigns/spec/field-names.js';

const SCRIPT = '<script>alert(1)</script>';
const ESCAPED_SCRIPT = '&lt;script&gt;alert(1)&lt;/script&gt;';
const ATTRIBUTE_BREAK = '" onmouseover="alert(2)';

/** Every `<script` in a page: only the page's own script file may be there. */
function scriptTags(page: string): string[] {
  return [...page.matchAll(/<script[^>]*>/gi)].map((m) => m[0]);
}

describe('html: escaping', () => {
  it('escapes the five characters that matter in text and in quoted attributes', () => {
    expect(escapeHtml(`<a href="x" title='y'>&amp;</a>`)).toBe('&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;amp;&lt;/a&gt;');
  });

  it('escapes every interpolated value, keeps fragments, joins lists, drops null, undefined and false', () => {
    const inner = html`<b>${SCRIPT}</b>`;
    const out = html`<p title="${ATTRIBUTE_BREAK}">${SCRIPT}${inner}${[SCRIPT, html`<i>ok</i>`]}${null}${undefined}${false}${0}</p>`;
    expect(out).toBeInstanceOf(SafeHtml);
    expect(out.value).toBe(
      `<p title="&quot; onmouseover=&quot;alert(2)">${ESCAPED_SCRIPT}<b>${ESCAPED_SCRIPT}</b>${ESCAPED_SCRIPT}<i>ok</i>0</p>`,
    );
  });

  it('escapes text that is already escaped once more (nothing is taken for markup but a fragment)', () => {
    expect(html`${ESCAPED_SCRIPT}`.value).toBe('&amp;lt;script&amp;gt;alert(1)&amp;lt;/script&amp;gt;');
  });
});

describe('the pages with hostile values from user files, Meta and operators', () => {
  const status = statusOf(
    SCRIPT,
    { state: 'paused', pausedReason: `${SCRIPT}${ATTRIBUTE_BREAK}` },
    { total: 10, queued: 5, sent: 2, failed: 2, rejected: 1, delivered: 1 },
  );
  const extras = extrasOf({ phoneNumberId: `${SCRIPT}1`, message: `text "${SCRIPT}"` });
  const tally = tallyOf([
    { status: 'failed', code: SCRIPT, rows: 2, example: `${SCRIPT} detail` },
    { status: 'rejected', code: 'PHONE_INVALID', rows: 1, example: `<img src=x onerror=alert(3)>` },
  ]);

  it('the campaigns list shows them as text: no markup of theirs, only the page script', () => {
    const page = campaignsPage([campaignView(status, { ...extras, tally })], Date.UTC(2026, 0, 1)).value;
    expect(page).toContain(ESCAPED_SCRIPT);
    expect(page).not.toContain(SCRIPT);
    expect(page).not.toContain(ATTRIBUTE_BREAK);
    expect(scriptTags(page)).toEqual(['<script src="/dashboard/live.js" defer>']);
    // The campaign's link: its ID encoded in the URL, then escaped in the attribute.
    expect(page).toContain('href="/campaigns/%3Cscript%3Ealert(1)%3C%2Fscript%3E"');
    expect(page).toContain(`data-campaign="${ESCAPED_SCRIPT}"`);
  });

  it("the campaign's page shows them as text too (reason, codes, details, number, form actions)", () => {
    const page = campaignPage({
      detail: detailOf(status, extras, tally),
      csrfToken: `${ATTRIBUTE_BREAK}`,
      error: `${SCRIPT} refused`,
    }).value;
    expect(page).not.toContain(SCRIPT);
    expect(page).not.toContain('<img');
    expect(page).not.toContain(ATTRIBUTE_BREAK);
    expect(scriptTags(page)).toEqual(['<script src="/dashboard/live.js" defer>']);
    expect(page).toContain(`<p class="error" role="alert">${ESCAPED_SCRIPT} refused</p>`);
    expect(page).toContain('&lt;img src=x onerror=alert(3)&gt;');
    expect(page).toContain('value="&quot; onmouseover=&quot;alert(2)"');
    expect(page).toContain('action="/campaigns/%3Cscript%3Ealert(1)%3C%2Fscript%3E/resume"');
  });
});

describe("the campaign's page: controls by state", () => {
  const forms = (page: string) => [...page.matchAll(/<form method="post" action="\/campaigns\/c1\/([a-z]+)"/g)].map((m) => m[1]);
  const pageFor = (state: Parameters<typeof statusOf>[1]) => {
    const status = statusOf('c1', state, { total: 4, queued: 4 });
    return campaignPage({ detail: detailOf(status, extrasOf(), tallyOf([])), csrfToken: 't' }).value;
  };

  it('offers what the state allows, each form with its token', () => {
    expect(forms(pageFor({ state: 'running', startedAt: 1 }))).toEqual(['pause', 'cancel']);
    expect(forms(pageFor({ state: 'scheduled', startsAt: Date.UTC(2027, 0, 1) }))).toEqual(['pause', 'cancel', 'reschedule']);
    expect(forms(pageFor({ state: 'paused', startedAt: 1 }))).toEqual(['resume', 'cancel']);
    expect(forms(pageFor({ state: 'cancelled' }))).toEqual([]);
    expect(forms(pageFor({ state: 'completed', finishedAt: 2 }))).toEqual([]);
    const running = pageFor({ state: 'running', startedAt: 1 });
    expect(running.match(/<input type="hidden" name="csrf" value="t">/g)).toHaveLength(2);
    expect(running).toContain('data-confirm="Cancel campaign c1 for good?');
  });

  it("shows a windowed campaign's window, the rows waiting for it and the next opening; nothing of the kind without a window", () => {
    const status = statusOf('c1', { state: 'running' }, { total: 4, queued: 4 });
    const extras = extrasOf({
      window: parseSendWindow('09:00-20:00', 'mon-fri', CLI_FIELD_NAMES),
      windowStatus: { window: '', waiting: 4, nextWindowAt: Date.UTC(2026, 11, 7, 8) },
    });
    const page = campaignPage({ detail: detailOf(status, extras, tallyOf([])), csrfToken: 't' }).value;
    expect(page).toContain('<dt>Send window</dt><dd><span data-field="window">09:00-20:00 local, mon-fri of each recipient</span></dd>');
    expect(page).toContain(
      '<dt>Waiting for their window</dt><dd><span data-field="waiting">4</span> rows · next opening ' +
        '<span data-field="nextWindow">2026-12-07 08:00:00 UTC</span></dd>',
    );
    expect(campaignPage({ detail: detailOf(status, extrasOf(), tallyOf([])), csrfToken: 't' }).value).not.toContain('Send window');
  });

  it('says when errors by code are a sample of the rows', () => {
    const status = statusOf('c1', {}, { total: 250_000, failed: 5 });
    const sample = campaignPage({
      detail: detailOf(status, extrasOf(), tallyOf([{ status: 'failed', code: '131026', rows: 5, example: '' }], false, 100_000)),
      csrfToken: 't',
    }).value;
    expect(sample).toContain(
      'Counted over the first 100,000 rows read (of 250,000; the count stops at 100,000 rows, so these are a sample)',
    );
  });
});
