import { GraphRejection } from '../graph-error.js';
import { formatMismatch, readParameter } from '../parameter-validation.js';
import type { MediaIds } from '../media-object.js';
import type { SentList } from './sent-components.js';
import type { HeaderShape } from './template-shape.js';
import { matchVariables } from './variables.js';

/**
 * A header component against the template's header format (templates/components): text
 * variables as the body's; one image, video, document or GIF (`link` or `id`), one location
 * (location-templates) or one catalog product (spm-template-messages) for those formats. A
 * parameter of another type, or no header at all, is Meta's 132012 "Format mismatch, expected
 * IMAGE, received …" (received UNKNOWN when nothing was sent, as real answers word it).
 */
export interface HeaderContext {
  named: boolean;
  media: MediaIds | undefined;
}

export function checkHeader(shape: HeaderShape, sent: SentList | undefined, label: string, context: HeaderContext): void {
  const parameters = sent?.parameters;
  if (shape.kind === 'none' || shape.kind === 'text') {
    checkTextHeader(shape.kind === 'text' ? shape.variables : [], parameters, label, context.named);
    return;
  }
  const kind = shape.kind === 'media' ? shape.media : shape.kind;
  if (parameters === undefined || parameters.length === 0) throw formatMismatch(label, [kind], 'UNKNOWN');
  parameters.forEach((p, i) =>
    readParameter(p, `${label}.parameters[${i}]`, { allowed: [kind], named: context.named, media: context.media, component: label }),
  );
  if (parameters.length !== 1) throw new GraphRejection(132000, `${label}: expected 1 parameters, got ${parameters.length}`);
}

function checkTextHeader(variables: string[], parameters: unknown[] | undefined, label: string, named: boolean): void {
  if (parameters === undefined) {
    if (variables.length > 0) throw new GraphRejection(132000, `${label}: expected ${variables.length} parameters, got 0`);
    return;
  }
  if (variables.length === 0) {
    throw new GraphRejection(132000, `${label}: template has no header parameters, got ${parameters.length}`);
  }
  const values = parameters.map((p, i) => readParameter(p, `${label}.parameters[${i}]`, { allowed: ['text'], named, component: label }));
  matchVariables(label, variables, values, named);
}
