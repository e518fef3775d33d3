import { AppError } from '../../errors/app-error.js';
import type { FieldNames } from './field-names.js';
import type { MessageChoice } from './message-choice.js';
import { rangePattern } from './range-pattern.js';

/** Where a campaign's rows are posted: Cloud API's `/messages`, or the Marketing Messages API's `/marketing_messages`. */
export type SendEndpoint = 'messages' | 'marketing-messages';

const ENDPOINTS: readonly SendEndpoint[] = ['messages', 'marketing-messages'];

/**
 * The endpoint a spec asks for. The Marketing Messages API takes marketing templates only, so
 * a text is refused here; a template's category is known once the template is found
 * (checkEndpointCategory), still before the file is read. `message` undefined: refused itself,
 * so only the value is checked.
 */
export function checkEndpoint(value: string | undefined, message: MessageChoice | undefined, names: FieldNames): SendEndpoint {
  if (value === undefined) return 'messages';
  const endpoint = ENDPOINTS.find((e) => e === value.toLowerCase());
  if (endpoint === undefined) throw new AppError('OPTION_INVALID', `${names.endpoint} "${value}": use messages or marketing-messages`);
  if (endpoint === 'marketing-messages' && message?.kind === 'text') {
    throw new AppError(
      'OPTION_INVALID',
      `${names.endpoint} marketing-messages sends MARKETING templates only, not ${names['text.body']}: ` +
        `drop ${names.endpoint}, or send a MARKETING template with ${names['template.name']}`,
    );
  }
  return endpoint;
}

/**
 * The Marketing Messages API refuses every other category (Meta's 134100): refused before a row is read, with a code of its
 * own (TEMPLATE_NOT_MARKETING), as only the template the server holds says its category.
 */
export function checkEndpointCategory(
  endpoint: SendEndpoint,
  template: { name: string; category: string | undefined },
  names: FieldNames,
): void {
  if (endpoint !== 'marketing-messages' || template.category === 'MARKETING') return;
  throw new AppError(
    'TEMPLATE_NOT_MARKETING',
    `${names.endpoint} marketing-messages sends MARKETING templates only; ${template.name} is ` +
      `${template.category ?? 'of unknown category'}: drop ${names.endpoint} to send it through /messages`,
  );
}

/** Meta's time-to-live range of a MARKETING template sent through the Marketing Messages API, in seconds: 12 h to 30 days. */
export const MARKETING_TTL_SECONDS = { min: 43_200, max: 2_592_000 } as const;

const UNIT_SECONDS = { m: 60, h: 3_600, d: 86_400 } as const;

/**
 * A time-to-live inside Meta's range as a whole number of minutes, hours or days (720m to 43200m, 12h to 720h, 1d to 30d):
 * the OpenAPI document's pattern of `ttl`, made from the same bounds the check holds it to.
 */
export const TTL_PATTERN = `^(?:${Object.entries(UNIT_SECONDS)
  .map(([unit, seconds]) => {
    const range = rangePattern(Math.ceil(MARKETING_TTL_SECONDS.min / seconds), Math.floor(MARKETING_TTL_SECONDS.max / seconds));
    return `${range}${unit}`;
  })
  .join('|')})$`;
const TTL = new RegExp(TTL_PATTERN);

/**
 * The time-to-live asked for, in seconds. Meta takes a marketing template's TTL only through
 * the Marketing Messages API, and only from 12 h to 30 days in whole seconds, so anything else is refused before
 * the file is read: a whole number of minutes, hours or days inside that range. `endpoint` undefined: refused itself, so
 * only the value is checked.
 */
export function checkTtl(value: string | undefined, endpoint: SendEndpoint | undefined, names: FieldNames): number | undefined {
  if (value === undefined) return undefined;
  if (endpoint === 'messages') {
    throw new AppError(
      'OPTION_INVALID',
      `${names.ttl} needs ${names.endpoint} marketing-messages: Meta takes a marketing template's time-to-live ` +
        'only through the Marketing Messages API',
    );
  }
  if (!TTL.test(value)) {
    throw new AppError(
      'OPTION_INVALID',
      `${names.ttl} "${value}": Meta allows a marketing time-to-live from 12h to 30d; give whole minutes, hours or days (e.g. 36h or 7d)`,
    );
  }
  const unit = value.slice(-1) as keyof typeof UNIT_SECONDS;
  return Number(value.slice(0, -1)) * UNIT_SECONDS[unit];
}
