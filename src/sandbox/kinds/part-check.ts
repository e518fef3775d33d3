import { renderPlaceholders } from '../../templates/template-requirements.js';
import { GraphRejection } from '../graph-error.js';
import type { MediaIds } from '../media-object.js';
import { readParameter, type ParameterKind } from '../parameter-validation.js';
import { checkButtons } from './button-check.js';
import { checkHeader } from './header-check.js';
import type { SentPart } from './sent-components.js';
import type { PartShape } from './template-shape.js';
import { matchVariables } from './variables.js';

/**
 * The header, body and buttons of the message, or of one carousel card, against the template's.
 * Returns the body's values by variable and the buttons' by index (an authentication code must
 * be the same in both).
 */
export interface PartContext {
  named: boolean;
  media: MediaIds | undefined;
  couponLimit: number;
  /** '' for the message, `card N ` for a card. */
  prefix: string;
  /** The rendered body's limit: 1024 for a message (templates/components), 160 for a card (media-card-carousel-templates). */
  bodyLimit: number;
}

const BODY_KINDS: readonly ParameterKind[] = ['text', 'currency', 'date_time'];

export interface PartValues {
  body: Map<string, string>;
  buttons: Map<number, string>;
}

export function checkPart(shape: PartShape, sent: SentPart, context: PartContext): PartValues {
  const body = checkHeaderAndBody(shape, sent, context);
  return { body, buttons: checkButtons(shape.buttons, sent.buttons, context) };
}

/** The header and body; the buttons are checked after (a message's limited-time offer sits between). */
export function checkHeaderAndBody(shape: PartShape, sent: SentPart, context: PartContext): Map<string, string> {
  const { named, prefix } = context;
  checkHeader(shape.header, sent.header, `${prefix}header`, context);

  const label = `${prefix}body`;
  const rules = { allowed: BODY_KINDS, named, component: label };
  const values = (sent.body?.parameters ?? []).map((p, i) => readParameter(p, `${label}.parameters[${i}]`, rules));
  const body = matchVariables(label, shape.bodyVariables, values, named);
  const rendered = renderPlaceholders(shape.bodyText, body);
  if (rendered.length > context.bodyLimit) {
    throw new GraphRejection(
      132005,
      `${label}: text after parameter substitution is ${rendered.length} characters; the limit is ${context.bodyLimit}`,
    );
  }
  return body;
}
