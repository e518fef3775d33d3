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
