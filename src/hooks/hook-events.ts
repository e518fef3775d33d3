import { AppError } from '../errors/app-error.js';
import { CAMPAIGN_EVENT_TYPES, EVENT_TYPES, ROW_EVENT_TYPES, isEventType, type EventType } from '../events/campaign-event.js';

/** Shorthands a hook's event list may use besides the events' own names. */
const GROUPS: Readonly<Record<string, readonly EventType[]>> = {
  all: EVENT_TYPES,
  'row.*': ROW_EVENT_TYPES,
  'campaign.*': CAMPAIGN_EVENT_TYPES,
};

/**
 * The events a hook asks for (`--events row.sent,row.failed`, `all`, `row.*`, `campaign.*`,
 * as one comma-separated list or several), once each, in EVENT_TYPES' order; HOOK_INVALID
 * naming the unknown ones and listing the valid ones.
 */
export function parseHookEvents(given: readonly string[]): EventType[] {
  const names = given
    .flatMap((item) => item.split(','))
    .map((name) => name.trim())
    .filter((name) => name !== '');
  if (names.length === 0) throw new AppError('HOOK_INVALID', `--events: name at least one event. ${validEventsText()}`);
  const unknown = names.filter((name) => !isEventType(name) && GROUPS[name] === undefined);
  if (unknown.length > 0) {
    const shown = unknown.slice(0, 5).map((name) => JSON.stringify(name.length > 40 ? `${name.slice(0, 37)}…` : name));
    throw new AppError('HOOK_INVALID', `--events: unknown event ${shown.join(', ')}. ${validEventsText()}`);
  }
  const chosen = new Set<string>(names.flatMap((name): readonly string[] => GROUPS[name] ?? [name]));
  return EVENT_TYPES.filter((type) => chosen.has(type));
}

function validEventsText(): string {
  return `Valid: ${EVENT_TYPES.join(', ')}, or all, row.*, campaign.*`;
}
