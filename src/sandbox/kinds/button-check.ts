import { GraphRejection } from '../graph-error.js';
import { INVALID } from '../json-checks.js';
import { readParameter, type ParameterKind, type ParameterValue } from '../parameter-validation.js';
import { checkCatalogAction, checkFlowAction, checkMpmAction } from './button-actions.js';
import type { SentButton } from './sent-components.js';
import type { ButtonShape } from './template-shape.js';
import { matchVariables } from './variables.js';

/**
 * The button components of the message or of one card, against the template's buttons by
 * `index`: a sub_type contradicting the template's button is 132018 ("Button at index N must be
 * of type QuickReply"), a button that needs a value and has no component is 131008 ("Button at
 * index N of type Url requires a parameter"), both in Meta's words (reference §2.3).
 */
export interface ButtonContext {
  named: boolean;
  /** Coupon codes: "Maximum 20 characters" (coupon-templates), 15 in a limited-time offer (limited-time-offer-templates). */
  couponLimit: number;
  /** '' for the message's own buttons, `card N ` for a card's. */
  prefix: string;
}

/** Returns the value sent for each button by index (a URL's variable, a payload, a code). */
export function checkButtons(shapes: readonly ButtonShape[], sent: readonly SentButton[], context: ButtonContext): Map<number, string> {
  const values = new Map<number, string>();
  const seen = new Set<number>();
  for (const button of sent) {
    const index = button.index ?? voiceCallIndex(shapes, context.prefix);
    if (seen.has(index)) throw new GraphRejection(INVALID, `Duplicate button component for index ${index} at ${button.where}`);
    seen.add(index);
    const shape = shapes[index];
    const label = `${context.prefix}button ${index}`;
    if (shape === undefined) throw new GraphRejection(132000, `${label}: template has no button at index ${index}`);
    if (button.subType !== shape.subType) {
      throw new GraphRejection(132018, `${context.prefix}buttons: Button at index ${index} must be of type ${shape.metaType}`);
    }
    if (!shape.takesValue && shape.subType !== 'url') {
      // Phone-number and View (SPM) buttons: no page shows a send component for them.
      throw new GraphRejection(132000, `${context.prefix}buttons: Button at index ${index} of type ${shape.metaType} takes no parameters`);
    }
    const value = checkButtonParameters(shape, button, label, context);
    if (value !== undefined) values.set(index, value);
  }
  const missing = shapes.find((shape) => shape.required && !seen.has(shape.index));
  if (missing !== undefined) {
    throw new GraphRejection(
      131008,
      `${context.prefix}buttons: Button at index ${missing.index} of type ${missing.metaType} requires a parameter`,
    );
  }
  return values;
}

function voiceCallIndex(shapes: readonly ButtonShape[], prefix: string): number {
  const shape = shapes.find((s) => s.subType === 'voice_call');
  if (shape === undefined) throw new GraphRejection(132000, `${prefix}buttons: template has no voice-call button`);
  return shape.index;
}

function checkButtonParameters(shape: ButtonShape, button: SentButton, label: string, context: ButtonContext): string | undefined {
  const read = (allowed: readonly ParameterKind[], nameOptional = false): ParameterValue[] => {
    if (button.parameters === undefined) throw GraphRejection.missing(`${button.where}.parameters`);
    const rules = { allowed, named: context.named, nameOptional, component: label };
    return button.parameters.map((p, i) => readParameter(p, `${label}.parameters[${i}]`, rules));
  };
  const one = (kind: ParameterKind): ParameterValue => {
    const values = read([kind]);
    if (values.length !== 1) throw new GraphRejection(132000, `${label} (${shape.subType}): expected 1 parameters, got ${values.length}`);
    return values[0] as ParameterValue;
  };
  switch (shape.subType) {
    case 'url': {
      // Whether a NAMED template's URL variable carries `parameter_name` is conflicting in the
      // reference (cloud-api.md lines 139-144, 628), which says to accept both shapes.
      const values = read(['text'], true);
      matchVariables(`${label} (url)`, shape.variables, values, context.named && values.some((v) => v.name !== undefined));
      return values[0]?.text;
    }
    case 'quick_reply':
      return one('payload').text;
    case 'copy_code':
      return couponCode(one('coupon_code').text ?? '', label, context.couponLimit);
    case 'flow':
      checkFlowAction(one('action').object ?? {}, `${label}.parameters[0].action`);
      return undefined;
    case 'catalog':
      // "If the parameters object is omitted, the product image of the first item in your catalog will be used."
      if (button.parameters !== undefined) checkCatalogAction(one('action').object ?? {}, `${label}.parameters[0].action`);
      return undefined;
    case 'mpm':
      checkMpmAction(one('action').object ?? {}, `${label}.parameters[0].action`);
      return undefined;
    case 'voice_call':
      checkVoiceCall(button.parameters === undefined ? [] : read(['ttl_minutes', 'payload']), label);
      return undefined;
    default:
      return undefined;
  }
}

function couponCode(code: string, label: string, limit: number): string {
  if (code.length > limit) {
    throw new GraphRejection(INVALID, `${label}: coupon_code has ${code.length} characters; the maximum is ${limit}`);
  }
  return code;
}

/** "a simplified sample": an optional `ttl_minutes` and an optional `payload` (at most 512 characters), each once. */
const MAX_CALL_PAYLOAD = 512;

function checkVoiceCall(values: ParameterValue[], label: string): void {
  const kinds = values.map((v) => v.kind);
  if (new Set(kinds).size !== kinds.length) throw new GraphRejection(INVALID, `${label}: ttl_minutes and payload may each be given once`);
  const payload = values.find((v) => v.kind === 'payload')?.text;
  if (payload !== undefined && payload.length > MAX_CALL_PAYLOAD) {
    throw new GraphRejection(INVALID, `${label}: payload has ${payload.length} characters; the maximum is ${MAX_CALL_PAYLOAD}`);
  }
}
