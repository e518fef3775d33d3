import { InvalidArgumentError } from 'commander';
import { AppError } from '../errors/app-error.js';

/** `--params a,b,c` → the non-empty names, trimmed. */
export const list = (value: string): string[] =>
  value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');

/** `--param name=column`, repeatable: each adds one variable's column. */
export const collectParam = (value: string, previous: Record<string, string>): Record<string, string> => {
  const match = /^([A-Za-z0-9_.]+)=(.+)$/.exec(value);
  if (match === null) {
    throw new InvalidArgumentError(
      'write it as --param SLOT=COLUMN, e.g. --param body.first_name=Name or --param button.1.coupon_code=code',
    );
  }
  return { ...previous, [match[1] ?? '']: match[2] ?? '' };
};

/** A whole number from 0 to `max`, or OPTION_INVALID naming the option. */
export function wholeNumberOption(name: string, value: string, max: number): number {
  const number = Number(value);
  if (!/^\d+$/.test(value) || number > max)
    throw new AppError('OPTION_INVALID', `${name} "${value}": give a whole number from 0 to ${max}`);
  return number;
}

/** `--phone-number-id A,B` → the IDs, each Meta's all-digits form. */
export function phoneNumberIdList(value: string): string[] {
  const ids = [
    ...new Set(
      value
        .split(',')
        .map((id) => id.trim())
        .filter((id) => id !== ''),
    ),
  ];
  const bad = ids.find((id) => !/^\d{1,20}$/.test(id));
  if (ids.length === 0 || bad !== undefined) {
    throw new AppError(
      'OPTION_INVALID',
      `--phone-number-id "${(bad ?? value).slice(0, 40)}": give numeric phone-number IDs from WhatsApp ` +
        `Manager, comma-separated (e.g. 106540352242922,106540352242923)`,
    );
  }
  return ids;
}
