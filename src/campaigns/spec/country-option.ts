import { getCountries, type CountryCode } from 'libphonenumber-js';
import { AppError } from '../../errors/app-error.js';

/** A `--default-country` as given (either case), or OPTION_INVALID naming the option `name`. */
export function checkCountry(code: string | undefined, name: string): CountryCode | undefined {
  if (code === undefined) return undefined;
  const upper = code.toUpperCase();
  if (!(getCountries() as string[]).includes(upper)) {
    throw new AppError('OPTION_INVALID', `${name} "${code}": use a two-letter ISO country code such as DE, BR or US`);
  }
  return upper as CountryCode;
}
