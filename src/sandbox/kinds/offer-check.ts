import { GraphRejection } from '../graph-error.js';
import { INVALID, rejectUnknownKeys } from '../json-checks.js';
import { readParameter } from '../parameter-validation.js';
import type { SentList } from './sent-components.js';
import type { TemplateShape } from './template-shape.js';

/**
 * A limited-time offer's component (templates/marketing-templates/limited-time-offer-templates):
 * `{type: "limited_time_offer", parameters: [{type: "limited_time_offer", limited_time_offer:
 * {expiration_time_ms}}]}`, the expiry "Required" as "a UNIX timestamp in milliseconds". Meta
 * states no rule that it be in the future (its own example sends 1209600000), so only its type
 * is checked: an integer.
 */
const OFFER_KEYS = new Set(['expiration_time_ms']);

export function checkOffer(shape: TemplateShape['offer'], sent: SentList | undefined): void {
  if (shape === undefined) {
    if (sent !== undefined) throw new GraphRejection(132000, 'limited_time_offer: template has no limited-time offer');
    return;
  }
  if (sent === undefined) {
    if (!shape.expiring) return;
    throw new GraphRejection(
      131008,
      'limited_time_offer: the template has a limited-time offer with an expiration; ' +
        'the send has no limited_time_offer component with its expiration_time_ms',
    );
  }
  const values = sent.parameters.map((p, i) =>
    readParameter(p, `limited_time_offer.parameters[${i}]`, {
      allowed: ['limited_time_offer'],
      named: false,
      component: 'limited_time_offer',
    }),
  );
  if (values.length !== 1) throw new GraphRejection(132000, `limited_time_offer: expected 1 parameters, got ${values.length}`);
  const where = 'limited_time_offer.parameters[0].limited_time_offer';
  const offer = values[0]?.object ?? {};
  rejectUnknownKeys(offer, OFFER_KEYS, where);
  const expiry = offer['expiration_time_ms'];
  if (expiry === undefined) throw GraphRejection.missing(`${where}.expiration_time_ms`);
  if (typeof expiry !== 'number' || !Number.isSafeInteger(expiry) || expiry < 0) {
    throw new GraphRejection(INVALID, `Parameter ${where}.expiration_time_ms must be an integer (a UNIX timestamp in milliseconds)`);
  }
}
