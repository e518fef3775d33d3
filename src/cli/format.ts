import { campaignLabel, campaignMessage, describeMessage, type CampaignDefinition, type CampaignStatus } from '../campaigns/campaign.js';
import { costLines } from './format-cost.js';
import type { SendOutcome } from '../campaigns/ingest/producer.js';
import { delimiterLabel } from '../csv/delimiter.js';
import type { MessagingLimitCheck } from '../campaigns/ingest/messaging-limit-check.js';
import type { WindowStatus } from '../campaigns/report/window-status.js';
import { reasonLines } from './format-reasons.js';
import { formatInstant, machineZone, type DisplayZone } from '../campaigns/spec/display-zone.js';
import { printable } from '../text/operator-text.js';
import { statusJson, type StatusView } from '../app/views/status-view.js';
import { secondsAt } from '../app/views/send-summary-view.js';
import { rowsLeft, type WatchView } from '../app/views/watch-view.js';

const shownText = (text: string | null): string | null => (text === null ? null : printable(text));

/** The view with its free texts neutralised for a terminal: what the text printers show, never what JSON gives. */
function shownStatus<V extends StatusView>(view: V): V {
  return {
    ...view,
    id: printable(view.id),
    name: shownText(view.name),
    pausedReason: shownText(view.pausedReason),
    cancelReason: shownText(view.cancelReason),
    window: shownText(view.window),
  };
}

/** Where a campaign's rows came from when not from a file of its own: an audience (its filter), a test send. */
function reachOf(view: StatusView): string {
  const { audience } = view;
  const from =
    audience === null
      ? ''
      : ` to audience ${printable(audience.name)}${audience.where === null ? '' : ` where ${printable(audience.where)}`}`;
  return `${from}${view.test ? " (a test send to the team's own numbers)" : ''}`;
}

/**
 * What `campaign status` and `list` print. Every text stored from outside (a name, a reason, a template's name, a
 * text's body) is printed through printable (src/text/operator-text.ts): one stored before the rule may hold ESC or RLO.
 */
export function statusText(status: CampaignStatus, windowed?: WindowStatus, definition?: CampaignDefinition): string {
  const j = shownStatus(statusJson(status, windowed, definition));
  const lines = [
    `Campaign ${campaignLabel(j.id, j.name)}: ${status.state}${status.priority === 'normal' ? '' : ` (priority ${status.priority})`}`,
    ...(definition === undefined ? [] : [`  sends ${printable(describeMessage(campaignMessage(definition)))}${reachOf(j)}`]),
    `  total ${j.total}  queued ${j.queued}  sent ` +
      `${j.sent}${answeredOf(j)}  failed ${j.failed}  ` +
      `rejected ${j.rejected}  skipped ${j.skipped}${j.confirming > 0 ? `  confirming ${j.confirming}` : ''}` +
      `${j.held > 0 ? `  held ${j.held}` : ''}  unknown ` +
      `${j.unknown}${j.cancelled > 0 ? `  cancelled ${j.cancelled}` : ''}${j.expired > 0 ? `  expired ${j.expired}` : ''}`,
  ];
  if (j.startsAt !== null && j.startedAt === null && status.state !== 'cancelled')
    lines.push(`  starts at ${j.startsAt}${j.startDeadline === null ? '' : ` (cancelled if not started by ${j.startDeadline})`}`);
  if (j.expiresAt !== null && status.state !== 'cancelled' && status.state !== 'completed')
    lines.push(`  rows not sent by ${j.expiresAt} expire`);
  if (j.window !== null && status.state !== 'cancelled' && status.state !== 'completed') {
    const waits =
      j.waiting === null || j.waiting === 0
        ? ''
        : `; ${j.waiting} rows wait for their ` +
          `window${j.nextWindowAt === null ? ' (it never opens: zones too far apart)' : `, the next opens ${j.nextWindowAt}`}`;
    lines.push(`  sends ${j.window} of each recipient${waits}`);
  }
  if (j.cancelReason !== null) lines.push(`  cancelled: ${j.cancelReason}`);
  if (j.pausedReason !== null) lines.push(`  paused since ${j.pausedAt ?? '?'}: ${j.pausedReason}`);
  if (j.ingestInterrupted) {
    lines.push(
      `  its file was not read to the end: send the same file with the same options and --campaign ` +
        `${status.id} to continue, or \`campaign cancel ${status.id}\``,
    );
  } else if (j.pausedReason !== null) {
    lines.push(`  continue with: campaign resume ${status.id}`);
  }
  if (j.purgedAt !== null) lines.push(`  personal data purged at ${j.purgedAt} (counts kept)`);
  if (j.confirming > 0)
    lines.push(
      `  ${j.confirming} rows got no answer and wait for a status webhook (CONFIRM_WINDOW_SECONDS); ` +
        `the workers then send them again once, or mark them unknown`,
    );
  if (j.held > 0)
    lines.push(
      `  ${j.held} rows are held by Meta for quality assessment; a status webhook makes them sent or failed ` +
        `(after HELD_PATIENCE_HOURS without one they become unknown)`,
    );
  if (j.unknown > 0)
    lines.push(
      `  ${j.unknown} rows may or may not have been delivered (see the report); \`campaign retry ${status.id} --unknown\` resends them`,
    );
  return lines.join('\n');
}

/** After the sent rows: what became of them (delivered, read, replied, and clicked for a campaign that tracks clicks), once any did. */
function answeredOf(j: Pick<StatusView, 'delivered' | 'read' | 'replied' | 'clicked'>): string {
  if (j.delivered === 0 && j.read === 0 && j.replied === 0 && (j.clicked ?? 0) === 0) return '';
  const replied = j.replied > 0 ? `, replied ${j.replied}` : '';
  return ` (delivered ${j.delivered}, read ${j.read}${replied}${j.clicked === null ? '' : `, clicked ${j.clicked}`})`;
}

/** The operator's line about the messaging limit: over it, within it, or not known. */
function limitLines(check: MessagingLimitCheck | undefined, zone: DisplayZone): string[] {
  if (check === undefined || check.limit === 'unlimited') return [];
  if (check.limit === undefined) {
    return [
      `  messaging limit of portfolio ${check.portfolio}: not known yet (a worker reads it from the Cloud API; ` +
        'MESSAGING_LIMITS sets it): rows past it wait in the backlog once it is',
    ];
  }
  const queued = check.queuedElsewhere > 0 ? `, ${check.queuedElsewhere} rows queued in its other campaigns` : '';
  const per24h = `portfolio ${check.portfolio}: ${check.limit} unique users per 24 h, ${check.reached} reached in the last 24 h${queued}`;
  if (check.over === 0) return [`  messaging limit: within it (${per24h})`];
  const when = check.freesAt === undefined ? '' : `; places start to free at ${formatInstant(check.freesAt, zone)}`;
  return [
    `  messaging limit: up to ${check.over} of its ${check.recipients} recipients are past the portfolio's limit ` +
      `(${per24h}): they wait in the backlog until the rolling 24 h frees places${when}`,
  ];
}

/**
 * How the plan shows its times: in `zone` (displayZoneOf: the offset the operator typed,
 * `--display-timezone`, or this machine's), and whether the campaign starts now (no `--at`, or
 * one not in the future) rather than at a scheduled start, however near.
 */
export interface PlanDisplay {
  zone: DisplayZone;
  startsNow: boolean;
}

/** Lines of the plan for the operator: when it starts and ends at SEND_RATE, and where its rows are. */
function planLines(summary: SendOutcome, rate: number, display: PlanDisplay): string[] {
  const { estimate } = summary;
  const at = (ms: number) => formatInstant(ms, display.zone);
  const pace = rate > 0 ? `at SEND_RATE=${rate}/s` : 'with pacing off (SEND_RATE=0)';
  const lines = [`  starts ${at(estimate.startsAt)}${display.startsNow ? ' (at once)' : ' (scheduled)'}`];
  if (estimate.window !== undefined) lines.push(`  sends ${estimate.window} of each recipient`);
  const heldBack = (summary.messagingLimit?.over ?? 0) > 0 ? ' (the rows past the messaging limit later: see below)' : '';
  if (estimate.finishesAt !== undefined)
    lines.push(`  finishes about ${at(estimate.finishesAt)} ${pace}, if it has the number to itself${heldBack}`);
  if (estimate.wouldExpire > 0) lines.push(`  ${estimate.wouldExpire} rows would expire before their turn ${pace}`);
  if (estimate.neverOpen > 0)
    lines.push(
      `  ${estimate.neverOpen} rows are in zones whose windows never overlap: they wait until the campaign expires or is cancelled`,
    );
  if (estimate.lanes.length > 0) {
    lines.push('  rows per time zone:');
    const shown = [...estimate.lanes].sort((a, b) => b.rows - a.rows);
    for (const lane of shown.slice(0, 20)) {
      const opens =
        lane.opensAt === undefined
          ? 'window never opens'
          : lane.opensAt <= estimate.startsAt
            ? 'window open at the start'
            : `window opens ${at(lane.opensAt)}`;
      lines.push(`  ${String(lane.rows).padStart(9)}  ${lane.zones.join(' & ')} (${opens})`);
    }
    if (shown.length > 20)
      lines.push(
        `  ${String(shown.slice(20).reduce((n, l) => n + l.rows, 0)).padStart(9)}  in ` +
          `${shown.length - 20} more zones (--json lists them all)`,
      );
  }
  const languages = Object.entries(summary.byLanguage).sort(([, a], [, b]) => b - a);
  if (languages.length > 0) {
    lines.push('  rows per language:');
    for (const [language, rows] of languages) lines.push(`  ${String(rows).padStart(9)}  ${printable(language)}`);
  }
  lines.push(...limitLines(summary.messagingLimit, display.zone));
  return lines;
}

/** `display`: by default this machine's zone, and "at once" when the start is not ahead. */
export function summaryText(summary: SendOutcome, rate: number, display?: PlanDisplay): string {
  const shown = display ?? { zone: machineZone(), startsNow: summary.estimate.startsAt <= Date.now() };
  const seconds = secondsAt(summary.valid, rate);
  const lines = summary.dryRun
    ? [
        `Dry run (nothing queued): ${summary.rows} rows read, ${summary.valid} valid, ${summary.rejected} ` +
          `rejected, ${summary.skipped} skipped${keptPart(summary)}`,
        seconds === undefined ? '  pacing is off (SEND_RATE=0)' : `  sending takes about ${formatDuration(seconds)} at SEND_RATE=${rate}/s`,
        ...planLines(summary, rate, shown),
      ]
    : [
        `Campaign ${campaignLabel(printable(summary.id), shownText(summary.name ?? null))}: ${summary.rows} rows read, ` +
          `${summary.queued} queued, ${summary.rejected} rejected, ${summary.skipped} skipped${keptPart(summary)}`,
        ...planLines(summary, rate, shown),
      ];
  lines.push(...costLines(summary));
  if (summary.delimiter !== ',') lines.push(`  fields separated by ${delimiterLabel(summary.delimiter)}`);
  if (summary.frequencyCapped > 0)
    lines.push(
      `  ${summary.frequencyCapped} rows to send are over FREQUENCY_CAPS now (an estimate): they will be skipped as ` +
        'FREQUENCY_CAPPED at their claim unless the window has moved on by then',
    );
  if (summary.reopened > 0) lines.push(`  ${summary.reopened} rows rejected or skipped by an earlier run are valid now and queued`);
  lines.push(...reasonLines(summary, shown.zone));
  if (summary.rejectsFile !== undefined) lines.push(`Rejected and skipped rows: ${summary.rejectsFile}`);
  return lines.join('\n');
}

/** Rows a continued send left as the campaign had them, by status: every row of the file is accounted for. */
function keptPart(summary: SendOutcome): string {
  if (summary.kept === 0) return '';
  const statuses = Object.entries(summary.keptByStatus).map(([status, n]) => `${n} ${status}`);
  return `, ${summary.kept} already in the campaign and kept as they were (${statuses.join(', ')})`;
}

function formatDuration(seconds: number): string {
  if (seconds < 120) return `${seconds} s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)} min`;
  return `${(seconds / 3600).toFixed(1)} h`;
}

/** The parts of a watch line: progress, rate and ETA; rows answered; rows still to go; what to know (paused, window). */
export function watchParts(watched: WatchView): { progress: string; answered: string; pending: string; note: string } {
  const view = shownStatus(watched);
  const done = Math.max(0, view.total - rowsLeft(view));
  const share = view.total === 0 ? 100 : Math.floor((100 * done) / view.total);
  const rate = view.rate === null ? 'rate -' : `${view.rate}/s`;
  const eta = view.etaSeconds === null ? 'ETA -' : `ETA ${formatDuration(view.etaSeconds)}`;
  const answered = `sent ${view.sent} (delivered ${view.delivered}, read ${view.read})  failed ${view.failed}  unknown ${view.unknown}`;
  const pending = [
    `queued ${view.queued}`,
    `confirming ${view.confirming}`,
    ...(view.held > 0 ? [`held ${view.held}`] : []),
    `rejected ${view.rejected}`,
    `skipped ${view.skipped}`,
    ...(view.cancelled > 0 ? [`cancelled ${view.cancelled}`] : []),
    ...(view.expired > 0 ? [`expired ${view.expired}`] : []),
  ].join('  ');
  const notes: string[] = [];
  if (view.pausedReason !== null) notes.push(`paused: ${view.pausedReason} (\`campaign resume ${view.id}\` continues it)`);
  if (view.state === 'scheduled' && view.startsAt !== null) notes.push(`starts at ${view.startsAt}`);
  if (view.waiting !== null && view.waiting > 0)
    notes.push(`${view.waiting} rows wait for their send window${view.nextWindowAt === null ? '' : ` (next opens ${view.nextWindowAt})`}`);
  if (view.cancelReason !== null) notes.push(`cancelled: ${view.cancelReason}`);
  return { progress: `${share}% ${done}/${view.total} rows done  ${rate}  ${eta}`, answered, pending, note: notes.join('; ') };
}

/** One line of `status --watch` where the output is not a terminal: the time, then what a redraw would show. */
export function watchLine(view: WatchView, at: number): string {
  const { progress, answered, pending, note } = watchParts(view);
  const head = `${new Date(at).toISOString()} ${printable(view.id)} ${view.state}`;
  return `${head}  ${progress}  ${answered}  ${pending}${note === '' ? '' : `  ${note}`}`;
}
