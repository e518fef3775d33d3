import { AppError } from '../../errors/app-error.js';
import { textTable } from '../text-table.js';
import { CAMPAIGN_EVENT_TYPES, EVENT_TYPES, ROW_EVENT_TYPES, type EventType } from '../../events/campaign-event.js';
import type { DeadHookEvent, HookView } from '../../hooks/hook.js';

/** `hooks add --json`: the one place, with the text below, the secret is written out. */
export function addedJson(added: { hook: HookView; secret: string }): string {
  const { name, url, events, campaignId, createdAt } = added.hook;
  return JSON.stringify({
    name,
    url,
    events,
    campaignId: campaignId ?? null,
    createdAt: new Date(createdAt).toISOString(),
    secret: added.secret,
  });
}

export function addedText(added: { hook: HookView; secret: string }): string {
  const { name, url, events, campaignId } = added.hook;
  return [
    `Hook "${name}" added: POST ${url}`,
    `  events: ${events.join(', ')}`,
    `  campaigns: ${campaignId ?? 'every campaign'}`,
    '',
    'Its secret (shown this once and never again: keep it in your secret store now):',
    '',
    `  ${added.secret}`,
    '',
    'Every batch carries X-Campaign-Signature: sha256=<HMAC-SHA256 of the raw body with this secret>;',
    'docs/events.md shows how to verify it (and to refuse a replay by its sent_at). `campaign serve` delivers the events;',
    `\`campaign hooks test ${name}\` sends one test batch now.`,
  ].join('\n');
}

export function hooksText(hooks: readonly HookView[]): string {
  if (hooks.length === 0) return 'No hooks under this QUEUE_PREFIX (`campaign hooks add URL --events LIST` adds one).';
  const rows = hooks.map((h) => [
    h.name,
    h.url,
    compactEvents(h.events),
    h.campaignId ?? 'all',
    String(h.figures.queued),
    String(h.figures.delivered),
    String(h.figures.retried),
    String(h.figures.dead),
    String(h.figures.waiting),
    h.figures.lagSeconds === undefined ? '-' : `${h.figures.lagSeconds.toFixed(1)}s`,
  ]);
  return textTable([['NAME', 'URL', 'EVENTS', 'CAMPAIGN', 'QUEUED', 'DELIVERED', 'RETRIED', 'DEAD', 'WAITING', 'LAG'], ...rows]);
}

export function testedText(name: string, answer: { ok: boolean; status: number; reason?: string }): string {
  if (answer.ok) return `Hook "${name}" took the test batch: HTTP ${answer.status}.`;
  return `Hook "${name}" did not take the test batch: ${answer.reason ?? `HTTP ${answer.status}`}. Check its URL and that it answers 2xx.`;
}

export function failedText(name: string, failed: readonly DeadHookEvent[]): string {
  if (failed.length === 0) return `Hook "${name}" has no dead letters.`;
  const rows = failed.map((f) => [
    new Date(f.failedAt).toISOString(),
    f.event.id,
    f.event.type,
    f.event.campaign_id,
    f.event.row === undefined ? '-' : String(f.event.row),
    f.reason,
  ]);
  return [
    textTable([['FAILED AT', 'EVENT', 'TYPE', 'CAMPAIGN', 'ROW', 'REASON'], ...rows]),
    '',
    `\`campaign hooks redeliver ${name}\` queues them again.`,
  ].join('\n');
}

/** `--limit N`: a whole number from 1; OPTION_INVALID otherwise. */
export function parseLimit(text: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(n) || n < 1)
    throw new AppError('OPTION_INVALID', `--limit ${text}: give a whole number of events from 1, e.g. --limit 50`);
  return n;
}

/** The hook's events as `hooks add --events` would take them, groups shortened: `all`, `row.*`, `campaign.*`. */
export function compactEvents(events: readonly EventType[]): string {
  if (EVENT_TYPES.every((type) => events.includes(type))) return 'all';
  const groups: [string, readonly EventType[]][] = [
    ['row.*', ROW_EVENT_TYPES],
    ['campaign.*', CAMPAIGN_EVENT_TYPES],
  ];
  return groups
    .flatMap(([group, types]) => (types.every((type) => events.includes(type)) ? [group] : types.filter((type) => events.includes(type))))
    .join(',');
}
