import type { CampaignCharts } from '../campaign-charts.js';
import { clear, el } from './dom.js';

type ErrorBar = NonNullable<CampaignCharts['errors']>[number];

/**
 * The page's errors table (src/dashboard/errors-section.ts), rewritten from the figures the
 * error bars were drawn from, so the two never disagree; `scope` says over which rows and when.
 */
export function errorsTable(list: readonly ErrorBar[], scope: string | undefined): void {
  const box = document.querySelector('.errors-by-code');
  const table = box?.querySelector<HTMLTableElement>('table.errors');
  const none = box?.querySelector<HTMLElement>('.errors-none');
  const body = table?.querySelector('tbody');
  if (!box || !table || !none || !body) return;
  clear(body);
  for (const e of list) {
    body.appendChild(
      el('tr', {}, [
        el('td', {}, [e.status]),
        el('td', {}, [el('code', {}, [e.code])]),
        el('td', { class: 'n' }, [e.rows.toLocaleString('en-US')]),
        el('td', { class: 'detail' }, [e.example]),
      ]),
    );
  }
  table.hidden = list.length === 0;
  none.hidden = list.length > 0;
  const said = box.querySelector('[data-errors-scope]');
  if (said && typeof scope === 'string') said.textContent = scope;
}
