import type { SummaryAnswer } from './api-answers.js';
import { clear, el } from './dom.js';
import { costLine, limitLine, when } from './plan-lines.js';
import type { ReasonGroup } from './rejects-by-reason.js';

function figure(name: string, value: number): HTMLElement {
  return el('span', { 'data-figure': name }, [String(value)]);
}

/** The refused rows by reason, each with its count and first examples (row, column, phone, detail). */
function reasonsTable(summary: SummaryAnswer, groups: readonly ReasonGroup[]): HTMLElement {
  const byReason = summary.byReason ?? {};
  const reasons = Object.keys(byReason);
  if (reasons.length === 0) return el('p', { class: 'reasons none' }, ['No row refused.']);
  const rows = reasons.map((reason) => {
    const group = groups.find((g) => g.reason === reason);
    const examples = (group?.examples ?? []).map((r) => {
      const at = `row ${r.row}${r.column ? `, column ${r.column}` : ''}${r.phone ? ` (${r.phone})` : ''}`;
      return el('div', { class: 'example' }, [`${at}: ${r.detail}`]);
    });
    return el('tr', { 'data-reason': reason }, [
      el('td', {}, [el('code', {}, [reason])]),
      el('td', { class: 'n' }, [String(byReason[reason])]),
      el('td', { class: 'detail' }, examples),
    ]);
  });
  return el('table', { class: 'reasons' }, [
    el('thead', {}, [el('tr', {}, [el('th', {}, ['Reason']), el('th', {}, ['Rows']), el('th', {}, ['Examples'])])]),
    el('tbody', {}, rows),
  ]);
}

/**
 * The dry run's answer: what would be queued, refused and skipped, and when it would be sent;
 * `exampleCard` is the file name of the rate card the package ships (costLine).
 */
export function showPlan(container: HTMLElement, summary: SummaryAnswer, groups: readonly ReasonGroup[], exampleCard: string): void {
  clear(container);
  const p = summary.plan ?? {};
  const lines = [
    `starts ${when(p.startsAt)}`,
    p.window ? `sends ${p.window} of each recipient` : null,
    p.finishesAt ? `finishes about ${when(p.finishesAt)}` : null,
    (p.wouldExpire ?? 0) > 0 ? `${p.wouldExpire} rows would expire before their turn` : null,
    (p.neverOpen ?? 0) > 0 ? `${p.neverOpen} rows are in zones whose windows never overlap` : null,
    limitLine(p.messagingLimit),
    costLine(p, exampleCard),
  ].flatMap((line) => (line ? [el('li', {}, [line])] : []));
  const zones = (p.timeZones ?? [])
    .slice()
    .sort((a, b) => b.rows - a.rows)
    .slice(0, 10)
    .map((z) => el('li', {}, [`${z.rows} rows in ${z.zones.join(' & ')}${z.opensAt ? `, window opens ${when(z.opensAt)}` : ''}`]));
  container.appendChild(el('h2', {}, ['The dry run']));
  container.appendChild(
    el('p', { class: 'counts' }, [
      figure('rows', summary.rows),
      ' rows read: ',
      figure('valid', summary.valid),
      ' would be sent, ',
      figure('rejected', summary.rejected),
      ' rejected, ',
      figure('skipped', summary.skipped),
      ' skipped.',
    ]),
  );
  container.appendChild(reasonsTable(summary, groups));
  container.appendChild(el('ul', { class: 'plan' }, lines));
  if (zones.length > 0) container.appendChild(el('ul', { class: 'zones' }, zones));
  container.hidden = false;
}
