import type { CountryCode } from 'libphonenumber-js';
import { checkCountry } from './country-option.js';
import { parseDelimiterOption } from '../../csv/delimiter.js';
import { checkDisplayTimezone } from './display-zone.js';
import { parseDuration, parseInstant, parseSchedule, type Schedule } from './time-options.js';
import { AppError } from '../../errors/app-error.js';
import { canonicalZone, ZONE_NAME } from '../../phone/recipient-zones.js';
import { CAMPAIGN_ID_PATTERN } from '../campaign-id.js';
import { checkCampaignName } from '../campaign-name.js';
import type { ColumnOptions } from '../send-plan.js';
import { parseSendWindow, type SendWindow } from '../feed/send-window.js';
import type { CampaignSpec } from './campaign-spec.js';
import type { FieldNames } from './field-names.js';
import { checkEndpoint, checkTtl, type SendEndpoint } from './send-endpoint.js';
import { checkMessage, type MessageChoice } from './message-choice.js';
import { checkMaxCost } from './max-cost.js';
import { SpecProblems } from './spec-problems.js';
import { checkReachOptions, type ReachOptions } from './reach-options.js';
import { checkClickOption, type ClickOption } from './click-options.js';

const PRIORITIES = ['high', 'normal', 'low'] as const;
export type Priority = (typeof PRIORITIES)[number];

/** A spec whose every rule holds, its values read: what a campaign is created from. */
export interface CheckedSpec extends ReachOptions {
  /** Trimmed; undefined: the file's name is used (a continued campaign keeps its own). */
  name: string | undefined;
  message: MessageChoice;
  phoneNumberId: string;
  /** Continue this campaign; undefined: a new one. */
  campaignId: string | undefined;
  columns: ColumnOptions;
  phoneColumn: string;
  defaultCountry: CountryCode | undefined;
  fixWhitespace: boolean;
  /** The character to split on; undefined: detected from the header. */
  delimiter: string | undefined;
  timezoneColumn: string | undefined;
  /** Canonical IANA name. */
  defaultTimezone: string | undefined;
  priority: Priority;
  schedule: Schedule;
  window: SendWindow | undefined;
  allowRepeat: boolean;
  /** MARKETING templates go to US numbers too (Meta lifted its pause). */
  allowUsMarketing: boolean;
  /** Where each row is posted: `/messages`, or `/marketing_messages` (a MARKETING template only). */
  endpoint: SendEndpoint;
  /** `id`: media headers are uploaded once per number and sent by ID; `link`: sent as the link. */
  mediaBy: MediaBy;
  /** The template's time-to-live to set, in seconds (the Marketing Messages API only); undefined: as the template has it. */
  ttlSeconds: number | undefined;
  dryRun: boolean;
  /** Canonical IANA name. */
  displayTimezone: string | undefined;
  /** Refuse the campaign when its estimated cost is above this (the rate card's currency); undefined: no limit. */
  maxCost: number | undefined;
  /** `trackClicks`: the column of each row's destination; undefined: clicks are not tracked. */
  clicks: ClickOption | undefined;
}

export interface SpecCheckContext {
  /** This host's clock: a start in the past or more than a year ahead is refused. */
  now: number;
  /** The number to send from when the spec names none (WHATSAPP_PHONE_NUMBER_ID). */
  defaultPhoneNumberId: string | undefined;
  /** The caller's own options that only a template campaign uses (the CLI's `--templates`), by name, when given. */
  templateOnly?: readonly string[];
}

/**
 * Every rule of a campaign spec that needs no file and no template, in the order an operator
 * fixes them: what to send, from which number, then the campaign, the columns' options, the
 * times and the window. Every broken rule is reported, naming fields as `names` says: one
 * alone as it is (OPTION_INVALID, TIME_INVALID, or CONFIG_INVALID when no number is set
 * anywhere), several as one ProblemsError listing each with its field.
 */
export function checkCampaignSpec(spec: CampaignSpec, names: FieldNames, context: SpecCheckContext): CheckedSpec {
  const { csv } = spec;
  // Each check alone: every broken rule is reported, not only the first. A check that needs another's value runs when that one held.
  const problems = new SpecProblems(names);
  const name = problems.check(() => (spec.name === undefined ? undefined : checkCampaignName(spec.name, names.name)));
  const displayTimezone = problems.check(() =>
    spec.displayTimezone === undefined ? undefined : checkDisplayTimezone(spec.displayTimezone, names.displayTimezone),
  );
  const delimiter = problems.check(() =>
    csv.delimiter === undefined ? undefined : parseDelimiterOption(csv.delimiter, names['csv.delimiter']),
  );
  const message = problems.check(() => checkMessage(spec, names, context.templateOnly));
  // A refused message or endpoint still lets the next check read its own value: each wrong field is reported.
  const endpoint = problems.check(() => checkEndpoint(spec.endpoint, message, names));
  const ttlSeconds = problems.check(() => checkTtl(spec.ttl, endpoint, names));
  const phoneNumberId = problems.check(() => checkPhoneNumberId(spec.phoneNumberId ?? context.defaultPhoneNumberId, names.phoneNumberId));
  const campaignId = problems.check(() => checkCampaignId(spec.campaignId, names.campaignId));
  const defaultCountry = problems.check(() => checkCountry(csv.defaultCountry, names['csv.defaultCountry']));
  const priority = problems.check(() => checkPriority(spec.priority, names.priority));
  const schedule = checkSchedule(spec.schedule ?? {}, context.now, names, problems);
  const window = checkWindow(spec, names, problems);
  const defaultTimezone = problems.check(() => checkZone(csv.defaultTimezone, names['csv.defaultTimezone']));
  const maxCost = problems.check(() => checkMaxCost(spec.maxCost, names.maxCost));
  const mediaBy = problems.check(() => checkMediaBy(spec, names));
  const reach = checkReachOptions(spec, names, problems);
  const clicks = problems.check(() => checkClickOption(spec, names));
  problems.throwIfAny();
  // Every check held: the values they return are all there.
  return {
    name,
    message: message!,
    phoneNumberId: phoneNumberId!,
    campaignId,
    columns: {
      params: csv.params,
      paramColumns: csv.paramColumns,
      headerTextColumn: csv.headerTextColumn,
      headerMediaColumn: csv.headerMediaColumn,
      buttonUrlColumns: csv.buttonUrlColumns,
      headerFileColumn: csv.headerFileColumn,
    },
    phoneColumn: csv.phoneColumn,
    defaultCountry,
    fixWhitespace: csv.fixWhitespace === true,
    delimiter,
    timezoneColumn: csv.timezoneColumn,
    defaultTimezone,
    priority: priority!,
    schedule: schedule!,
    window,
    allowRepeat: spec.allowRepeat === true,
    allowUsMarketing: spec.allowUsMarketing === true,
    endpoint: endpoint!,
    mediaBy: mediaBy!,
    ttlSeconds,
    dryRun: spec.dryRun === true,
    displayTimezone,
    maxCost,
    clicks,
    ...reach,
  };
}

function checkPhoneNumberId(id: string | undefined, name: string): string {
  if (id === undefined) throw new AppError('CONFIG_INVALID', `No phone number to send from: set WHATSAPP_PHONE_NUMBER_ID or pass ${name}`);
  if (!/^\d+$/.test(id)) throw new AppError('OPTION_INVALID', `${name} "${id}": give the numeric phone-number ID from WhatsApp Manager`);
  return id;
}

function checkCampaignId(id: string | undefined, name: string): string | undefined {
  if (id !== undefined && !CAMPAIGN_ID_PATTERN.test(id)) {
    throw new AppError(
      'OPTION_INVALID',
      `${name} "${id}": a campaign ID starts with a letter and has only letters, digits, _ and - (at most 64)`,
    );
  }
  return id;
}

function checkPriority(level: string | undefined, name: string): Priority {
  if (level === undefined) return 'normal';
  const found = PRIORITIES.find((p) => p === level.toLowerCase());
  if (found === undefined) throw new AppError('OPTION_INVALID', `${name} "${level}": use high, normal or low`);
  return found;
}

/** Each time alone (every wrong one is reported), then the rules between them once each holds. */
function checkSchedule(given: ScheduleInput, now: number, names: FieldNames, problems: SpecProblems): Schedule | undefined {
  const { at, startDeadline, expiresAt, validFor } = given;
  const held = [
    at === undefined || problems.check(() => parseSchedule({ at }, now, names)) !== undefined,
    startDeadline === undefined || problems.check(() => parseInstant(names['schedule.startDeadline'], startDeadline)) !== undefined,
    expiresAt === undefined || problems.check(() => parseInstant(names['schedule.expiresAt'], expiresAt)) !== undefined,
    validFor === undefined || problems.check(() => parseDuration(names['schedule.validFor'], validFor)) !== undefined,
  ];
  if (!held.every(Boolean)) return undefined;
  return problems.check(() => parseSchedule(given, now, names));
}

type ScheduleInput = NonNullable<CampaignSpec['schedule']>;

/** Hours that are always valid: the days are read against them, so wrong days are reported beside wrong hours. */
const WHOLE_DAY = '00:00-24:00';

/** The window's hours and days; the days, a time-zone column or a default zone alone would do nothing, so they are refused. */
function checkWindow(spec: CampaignSpec, names: FieldNames, problems: SpecProblems): SendWindow | undefined {
  const { hours, days } = spec.window ?? {};
  if (hours !== undefined) {
    const hoursHeld = problems.check(() => parseSendWindow(hours, undefined, names));
    const daysHeld = days === undefined ? true : problems.check(() => parseSendWindow(WHOLE_DAY, days, names));
    return hoursHeld === undefined || daysHeld === undefined ? undefined : problems.check(() => parseSendWindow(hours, days, names));
  }
  return problems.check(() => windowAlone(spec, names));
}

/** The days, a time-zone column or a default zone without the hours: refused, as they would do nothing. */
function windowAlone(spec: CampaignSpec, names: FieldNames): undefined {
  const alone =
    spec.window?.days !== undefined
      ? names['window.days']
      : spec.csv.timezoneColumn !== undefined
        ? names['csv.timezoneColumn']
        : spec.csv.defaultTimezone !== undefined
          ? names['csv.defaultTimezone']
          : undefined;
  if (alone !== undefined)
    throw new AppError(
      'OPTION_INVALID',
      `${alone} needs ${names['window.hours']} HH:MM-HH:MM (the hours of the recipient's local day to send in)`,
    );
  return undefined;
}

/**
 * An IANA zone, by its canonical name (an alias resolved): a name not of a zone's form is
 * OPTION_INVALID; one of that form that no zone has is TIMEZONE_NOT_FOUND (the tz database
 * decides, not the form).
 */
function checkZone(zone: string | undefined, name: string): string | undefined {
  if (zone === undefined) return undefined;
  const trimmed = zone.trim();
  const canonical = canonicalZone(trimmed);
  if (canonical === undefined)
    throw new AppError(
      ZONE_NAME.test(trimmed) ? 'TIMEZONE_NOT_FOUND' : 'OPTION_INVALID',
      `${name} "${zone.slice(0, 64)}": give an IANA time zone as Area/City, e.g. Europe/Berlin or America/New_York`,
    );
  return canonical;
}

export type MediaBy = 'id' | 'link';

/** How media headers are sent; a local file (`csv.headerFileColumn`) has no link to send, and one header has one source. */
function checkMediaBy(spec: CampaignSpec, names: FieldNames): MediaBy {
  const value = spec.mediaBy?.toLowerCase() ?? 'id';
  if (value !== 'id' && value !== 'link') throw new AppError('OPTION_INVALID', `${names.mediaBy} "${spec.mediaBy}": use id or link`);
  const files = spec.csv.headerFileColumn;
  if (files !== undefined && value === 'link') {
    throw new AppError(
      'OPTION_INVALID',
      `${names['csv.headerFileColumn']} reads local files, which have no link to send: drop ${names.mediaBy} link (files are uploaded)`,
    );
  }
  if (files !== undefined && spec.csv.headerMediaColumn !== undefined) {
    throw new AppError(
      'OPTION_INVALID',
      `${names['csv.headerMediaColumn']} and ${names['csv.headerFileColumn']} both fill the media header: give one of them`,
    );
  }
  return value;
}
