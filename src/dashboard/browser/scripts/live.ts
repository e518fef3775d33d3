/**
 * /dashboard/live.js, every page's script (src/dashboard/layout.ts). Forms with `data-confirm`
 * ask first. Every 2 s it fetches the page's JSON (`data-live` on <body>) and copies each figure
 * into the element that shows it (`[data-field]` inside the campaign's `[data-campaign]`), with
 * textContent only (never markup). A campaign that appears or goes, or (on a campaign's own
 * page) a change of state, reloads the page, whose controls depend on it. Each update is
 * dispatched as the `live-data` event, for the charts (./charts.ts). Times are written as the
 * pages write them (utcTime).
 */
import { LIVE_DATA_EVENT, type LiveData } from '../live-data.js';
import { utcTime } from '../utc-time.js';

const INTERVAL_MS = 2000;

document.addEventListener('submit', (event) => {
  const question = (event.target as Element).getAttribute('data-confirm');
  if (question && !window.confirm(question)) event.preventDefault();
});

const blocks = (): HTMLElement[] => [...document.querySelectorAll<HTMLElement>('[data-campaign]')];

/** Copies one update into the page; false when the page must reload instead. */
function apply(data: LiveData, shown: readonly (string | null)[]): boolean {
  const ids = data.campaigns.map((c) => c.id);
  if (ids.length !== shown.length || !ids.every((id) => shown.includes(id))) return false;
  for (const c of data.campaigns) {
    for (const block of blocks()) {
      if (block.getAttribute('data-campaign') !== c.id) continue;
      if (block.hasAttribute('data-reload-on-state') && block.getAttribute('data-state') !== c.state) return false;
      block.setAttribute('data-state', c.state);
      for (const f of block.querySelectorAll('[data-field]')) {
        const value = (c.fields as Record<string, string | undefined>)[f.getAttribute('data-field') ?? ''];
        if (typeof value === 'string' && f.textContent !== value) f.textContent = value;
      }
      for (const p of block.querySelectorAll('progress')) p.value = c.progress;
    }
  }
  const updated = document.getElementById('updated');
  if (updated) updated.textContent = utcTime(data.at);
  document.dispatchEvent(new CustomEvent<LiveData>(LIVE_DATA_EVENT, { detail: data }));
  return true;
}

function poll(source: string): void {
  const shown = blocks().map((el) => el.getAttribute('data-campaign'));
  const status = document.getElementById('live-status');
  const tick = async (): Promise<void> => {
    try {
      const response = await fetch(source, { headers: { accept: 'application/json' }, cache: 'no-store', credentials: 'same-origin' });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const data = (await response.json()) as LiveData;
      if (!apply(data, shown)) return window.location.reload();
      if (status) status.textContent = `live: updated ${utcTime(Date.now())}`;
    } catch {
      if (status) status.textContent = 'live updates failing: the service did not answer';
    }
    setTimeout(() => void tick(), INTERVAL_MS);
  };
  setTimeout(() => void tick(), INTERVAL_MS);
}

const source = document.body.getAttribute('data-live');
if (source) poll(source);
