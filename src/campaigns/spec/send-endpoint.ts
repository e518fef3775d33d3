import { parseDuration } from '../../cli/time-options.js';
import { AppError } from '../../errors/app-error.js';
import type { FieldNames } from './field-names.js';
import type { MessageChoice } from './message-choice.js';

/** Where a campaign's rows are posted: Cloud API's `/messages`, or the Marketing Messages API's `/marketing_messages`. */
export type SendEndpoint = 'messages' | 'marketing-messages';

const ENDPOINTS: readonly SendEndpoint[] = ['messages', 'marketing-messages'];

/**
 * The endpoint a spec asks for. The Marketing Messages API takes marketing templates only, so
 * a text is refused here; a template's category is known once the template is found
 * (checkEndpointCategory), still before the file is read.
 */
export function checkEndpoint(value: string | undefined, message: MessageChoice, names: FieldNames): SendEndpoint {
  if (value === undefined) return 'messages';
  const endpoint = ENDPOINTS.find((e) => e === value.toLowerCase());
  if (endpoint === undefined) throw new AppError('OPTION_INVALID', `${names.endpoint} "${value}": use messages or marketing-messages`);
  if (endpoint === 'marketing-messages' && message.kind === 'text') {
    throw new AppError(
      'OPTION_INVALID',
      `${names.endpoint} marketing-messages sends MARKETING templates only, not ${names['text.body']}: ` +
        `drop ${names.endpoint}, or send a MARKETING template with ${names['template.name']}`,
    );
  }
  return endpoint;
}

/** The Marketing Messages API refuses every other category (Meta's 134100): refused before a row is read. */
export function checkEndpointCategory(
  endpoint: SendEndpoint,
  template: { name: string; category: string | undefined },
  names: FieldNames,
): void {
  if (endpoint !== 'marketing-messages' || template.category === 'MARKETING') return;
  throw new AppError(
    'OPTION_INVALID',
    `${names.endpoint} marketing-messages sends MARKETING templates only; ${template.name} is ` +
      `${template.category ?? 'of unknown category'}: drop ${names.endpoint} to send it through /messages`,
  );
}

/** Meta's time-to-live range of a MARKETING template sent through the Marketing Messages API, in seconds: 12 h to 30 days. */
export const MARKETING_TTL_SECONDS = { min: 43_200, max: 2_592_000 } as const;

/**
 * The time-to-live asked for, in seconds. Meta takes a marketing template's TTL only through
 * the Marketing Messages API, and only from 12 h to 30 days, so anything else is refused before
 * the file is read.
 */
export function checkTtl(value: string | undefined, endpoint: SendEndpoint, names: FieldNames): number | undefined {
  if (value === undefined) return undefined;
  if (endpoint !== 'marketing-messages') {
    throw new AppError(
      'OPTION_INVALID',
      `${names.ttl} needs ${names.endpoint} marketing-messages: Meta takes a marketing template's time-to-live ` +
        'only through the Marketing Messages API',
    );
  }
  const seconds = parseDuration(names.ttl, value) / 1000;
  if (!Number.isInteger(seconds) || seconds < MARKETING_TTL_SECONDS.min || seconds > MARKETING_TTL_SECONDS.max) {
    throw new AppError('OPTION_INVALID', `${names.ttl} "${value}": Meta allows a marketing time-to-live from 12h to 30d (e.g. 36h or 7d)`);
  }
  return seconds;
}
