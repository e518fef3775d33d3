import { AppError } from '../errors/app-error.js';

/**
 * An audience's name: it is part of Redis key names and of URLs, so it holds no `:`, `{`, `}`,
 * `/` or space, and it is short enough to type.
 */
export const AUDIENCE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** The name as given, or AUDIENCE_NAME_INVALID saying what a name may hold (`what`: how the caller names it, `--audience`). */
export function checkAudienceName(name: string, what = 'audience'): string {
  if (AUDIENCE_NAME.test(name)) return name;
  const shown = name.length > 80 ? `${name.slice(0, 77)}…` : name;
  throw new AppError(
    'AUDIENCE_NAME_INVALID',
    `${what} "${shown}": a name starts with a letter or digit, then letters, digits, _, - or ., 64 characters at most ` +
      '(e.g. weekly-offer or clinic_2026)',
  );
}

/** AUDIENCE_NOT_FOUND for `name` in `portfolio`. */
export function audienceNotFound(name: string, portfolio: string): AppError {
  return new AppError(
    'AUDIENCE_NOT_FOUND',
    `No audience "${name}" in portfolio ${portfolio}. \`campaign audiences list\` shows its audiences; ` +
      'an audience belongs to one portfolio.',
  );
}
