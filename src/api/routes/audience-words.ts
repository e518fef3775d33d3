import type { AppError } from '../../errors/app-error.js';
import { withoutHostPaths } from '../upload/spool-paths.js';

/** The CLI's flags the audience use cases name in their messages, and the API's fields that say the same. */
const FIELDS_OF_FLAGS: ReadonlyMap<string, string> = new Map([
  ['--phone-column', 'phoneColumn'],
  ['--consent-column', 'consentColumn'],
  ['--default-country', 'defaultCountry'],
  ['--delimiter', 'delimiter'],
  ['--phone-number-id', 'phoneNumberId'],
  ['--portfolio', 'portfolio'],
]);

/**
 * An audience refusal in the API's words: the use cases speak to the CLI (`pass --phone-column`),
 * a caller of the API sends `phoneColumn`. Only the texts change; code, status and fields stay.
 */
export function apiWordsOf(error: AppError): AppError {
  // withoutHostPaths replaces each text it is given with its name: here a flag with its field.
  return withoutHostPaths(error, FIELDS_OF_FLAGS);
}
