import type { CountryCode } from 'libphonenumber-js';
import { toE164 } from '../../phone/e164.js';
import { PLACEHOLDER } from '../../templates/template-requirements.js';
import type { ColumnMapping } from './column-mapping.js';
import { boundedBadValue } from './bad-value.js';
import {
  MAX_BODY_CHARS,
  MAX_CARD_BODY_CHARS,
  MAX_HEADER_CHARS,
  collapseWhitespace,
  textValueProblem,
  valueProblem,
  valueProblemDetail,
} from '../parameter-rules.js';
import type { RejectionReason } from '../rejection-reasons.js';
import type { SendPlan } from '../send-plan.js';
import { checkSlotValue, isWebUrl, textRefusal, type SlotContext } from '../slot-value.js';
import { headerFileOf } from './header-file.js';
import { textTooLong, type TextPlan } from '../text-plan.js';
import { clickDestination, clickUrlDetail } from '../../clicks/click-destination.js';

/** The time a value is checked at when the caller gives no context: read when asked. */
const NOW: SlotContext = {
  get now() {
    return Date.now();
  },
};

/** Longer than any written phone number, spaces and punctuation included. */
const MAX_PHONE_CHARS = 64;

export type RowVerdict =
  | { ok: true; to: string; country: CountryCode | undefined; values: string[]; headerLink: string | undefined }
  | { ok: false; phone: string; reason: RejectionReason; detail: string; skip?: true };

export interface RowRules {
  plan: SendPlan;
  mapping: ColumnMapping;
  defaultCountry?: CountryCode | undefined;
  fixWhitespace?: boolean | undefined;
  /** The folder of the CSV file: `--header-file-column`'s paths are read inside it. */
  fileBase?: string | undefined;
  /** The time and the campaign's expiry, which a limited-time offer's end is checked against. */
  slotContext?: SlotContext | undefined;
  /** `--track-clicks`: the tracked button's slot, whose column holds the row's destination (its token is put in later). */
  clickSlot?: string | undefined;
}

/**
 * Checks one CSV record against the campaign's plan and Meta's parameter rules, so that no
 * request the API would refuse is ever queued. The detail names the column, the rule and
 * the fix.
 */
export function checkRow(fields: readonly string[], rules: RowRules): RowVerdict {
  const { mapping, plan } = rules;
  const phone = checkRecipient(fields, mapping, rules.defaultCountry);
  if (!phone.ok) return phone;

  const values: string[] = [];
  const context = rules.slotContext ?? NOW;
  for (const { index, column, slot } of mapping.slots) {
    // The language the row is sent in, which the caller chose this plan by (a fallback's when the row's was missing).
    if (slot.kind === 'language') {
      values.push(plan.language);
      continue;
    }
    let value = (fields[index] ?? '').trim();
    if (slot.name === rules.clickSlot) {
      const destination = clickDestination(value);
      if (destination === undefined) return reject(phone.e164, 'CLICK_URL_INVALID', clickUrlDetail(value, column));
      values.push(destination);
      continue;
    }
    if (rules.fixWhitespace === true && slot.kind === 'text') value = collapseWhitespace(value);
    // Almost every value is a plain text variable: checked by its rule alone, allocating nothing on this path, run for every value.
    if (slot.kind === 'text' && slot.maxLength === undefined) {
      const problem = valueProblem(value);
      if (problem !== undefined) return reject(phone.e164, problem, textRefusal(value, column, problem).detail);
      values.push(value);
      continue;
    }
    const verdict = checkSlotValue(slot.kind, value, column, context, slot.maxLength);
    if (!verdict.ok) return reject(phone.e164, verdict.reason, verdict.detail);
    values.push(verdict.value);
  }

  const tooLong = renderedTooLong(plan, values);
  if (tooLong !== undefined) return reject(phone.e164, tooLong.reason, tooLong.detail);

  let headerLink: string | undefined;
  if (mapping.headerMedia !== undefined && plan.headerMedia?.from === 'file') {
    const file = headerFileOf((fields[mapping.headerMedia.index] ?? '').trim(), rules.fileBase);
    if (!file.ok) return reject(phone.e164, 'HEADER_FILE_INVALID', `column "${mapping.headerMedia.column}": ${file.problem}`);
    headerLink = file.path;
  } else if (mapping.headerMedia !== undefined) {
    headerLink = (fields[mapping.headerMedia.index] ?? '').trim();
    if (!isWebUrl(headerLink)) {
      return reject(
        phone.e164,
        'HEADER_LINK_INVALID',
        `column "${mapping.headerMedia.column}": "${boundedBadValue(headerLink)}" is not an http:// or https:// URL`,
      );
    }
  }
  return { ok: true, to: phone.e164, country: phone.country, values, headerLink };
}

/** The field count and the recipient, the same for template and text rows. */
function checkRecipient(
  fields: readonly string[],
  mapping: ColumnMapping,
  defaultCountry: CountryCode | undefined,
): { ok: true; e164: string; country: CountryCode | undefined } | Extract<RowVerdict, { ok: false }> {
  const rawPhone = (fields[mapping.phone] ?? '').trim();
  if (fields.length !== mapping.fieldCount) {
    return reject(
      rawPhone,
      'FIELD_COUNT',
      `expected ${mapping.fieldCount} fields as in the header, found ${fields.length} (check quoting and delimiters)`,
    );
  }
  if (rawPhone === '') return reject(rawPhone, 'PHONE_MISSING', 'the phone column is empty');
  // Not worth parsing, and its text must not be quoted back whole.
  if (rawPhone.length > MAX_PHONE_CHARS) {
    return reject(
      rawPhone,
      'PHONE_INVALID',
      `the phone column holds ${rawPhone.length.toLocaleString('en-US')} characters; a phone number has at most 15 digits`,
    );
  }
  const phone = toE164(rawPhone, defaultCountry);
  if (!phone.ok) return reject(rawPhone, 'PHONE_INVALID', phone.reason);
  return { ok: true, e164: phone.e164, country: phone.country };
}

export interface TextRowRules {
  text: TextPlan;
  /** The mapping of the text's columns (resolveColumns with textColumns(text)). */
  mapping: ColumnMapping;
  defaultCountry?: CountryCode | undefined;
  fixWhitespace?: boolean | undefined;
}

/**
 * Checks one CSV record of a text campaign (`--text`): the recipient as for a template, each
 * placeholder's value by the text rules (textValueProblem: line breaks, tabs and spaces are
 * fine in free text, empty values and control or bidi characters are not), and the filled
 * body against Meta's 4,096 characters (TEXT_TOO_LONG).
 */
export function checkTextRow(fields: readonly string[], rules: TextRowRules): RowVerdict {
  const { mapping } = rules;
  const phone = checkRecipient(fields, mapping, rules.defaultCountry);
  if (!phone.ok) return phone;
  const values: string[] = [];
  for (const slot of mapping.slots) {
    let value = (fields[slot.index] ?? '').trim();
    if (rules.fixWhitespace === true) value = collapseWhitespace(value);
    const problem = textValueProblem(value);
    if (problem !== undefined) {
      const detail =
        problem === 'VALUE_EMPTY'
          ? 'is empty or only spaces and invisible characters; every placeholder of the text needs a visible value'
          : valueProblemDetail(value, problem);
      return reject(phone.e164, problem, `column "${slot.column}" ({{${slot.column}}} in the text) ${detail}`);
    }
    values.push(value);
  }
  const tooLong = textTooLong(rules.text, values);
  if (tooLong !== undefined) return reject(phone.e164, tooLong.reason, tooLong.detail);
  return { ok: true, to: phone.e164, country: phone.country, values, headerLink: undefined };
}

/** The body and text header as Meta will render them must fit its limits (132005 otherwise). */
export function renderedTooLong(plan: SendPlan, values: readonly string[]): { reason: RejectionReason; detail: string } | undefined {
  const model = lengthModelOf(plan);
  const bodyLength = renderedLength(model.body, values);
  if (bodyLength > MAX_BODY_CHARS) {
    return {
      reason: 'BODY_TOO_LONG',
      detail: `the rendered body is ${bodyLength} characters, Meta allows ${MAX_BODY_CHARS}; shorten the values`,
    };
  }
  if (model.header !== undefined) {
    const headerLength = renderedLength(model.header, values);
    if (headerLength > MAX_HEADER_CHARS) {
      return { reason: 'HEADER_TOO_LONG', detail: `the rendered header is ${headerLength} characters, Meta allows ${MAX_HEADER_CHARS}` };
    }
  }
  // An indexed loop: this runs for every row, and most plans have no cards.
  for (let card = 0; card < model.cards.length; card++) {
    const length = renderedLength(model.cards[card]!, values);
    if (length > MAX_CARD_BODY_CHARS) {
      return {
        reason: 'BODY_TOO_LONG',
        detail:
          `card ${card}'s rendered body is ${length} characters, Meta allows ${MAX_CARD_BODY_CHARS} on a carousel card; ` +
          'shorten the values',
      };
    }
  }
  return undefined;
}

/**
 * A text's rendered length is its fixed part plus each value times the number of places it
 * fills. Worked out once per plan, so checking a row allocates nothing (this runs on every
 * row of every file).
 */
interface LengthModel {
  fixed: number;
  /** Placeholder occurrences per slot index. */
  uses: { slot: number; count: number }[];
}

interface PlanLengths {
  body: LengthModel;
  header: LengthModel | undefined;
  cards: LengthModel[];
}

const lengthModels = new WeakMap<SendPlan, PlanLengths>();

function lengthModelOf(plan: SendPlan): PlanLengths {
  let model = lengthModels.get(plan);
  if (model === undefined) {
    model = {
      body: textModel(plan.bodyText, plan, 'body'),
      header: plan.headerText === undefined ? undefined : textModel(plan.headerText, plan, 'header'),
      cards: (plan.cardBodyTexts ?? []).map((text, card) => textModel(text, plan, 'body', card)),
    };
    lengthModels.set(plan, model);
  }
  return model;
}

function textModel(text: string, plan: SendPlan, component: 'body' | 'header', card?: number): LengthModel {
  const counts = new Map<number, number>();
  let fixed = text.length;
  for (const match of text.matchAll(PLACEHOLDER)) {
    const slot = plan.slots.findIndex((s) => s.card === card && s.component === component && s.kind === 'text' && s.variable === match[1]);
    if (slot < 0) continue; // not filled: it stays in the text as written
    fixed -= match[0].length;
    counts.set(slot, (counts.get(slot) ?? 0) + 1);
  }
  return { fixed, uses: [...counts].map(([slot, count]) => ({ slot, count })) };
}

function renderedLength(model: LengthModel, values: readonly string[]): number {
  let length = model.fixed;
  for (const use of model.uses) length += use.count * (values[use.slot]?.length ?? 0);
  return length;
}

/** The phone cell of a refused row is kept bounded: it may be anything the file held. */
function reject(phone: string, reason: RejectionReason, detail: string): Extract<RowVerdict, { ok: false }> {
  return { ok: false, phone: boundedBadValue(phone), reason, detail };
}
