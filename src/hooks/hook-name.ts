import { AppError } from '../errors/app-error.js';

/**
 * A hook's name: part of Redis key names, of URLs and of metric labels, so it holds no `:`,
 * `{`, `}`, `/` or space (the pattern of audience names).
 */
export const HOOK_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** The name as given, or HOOK_INVALID saying what a name may hold. */
export function checkHookName(name: string): string {
  if (HOOK_NAME.test(name)) return name;
  const shown = name.length > 80 ? `${name.slice(0, 77)}…` : name;
  throw new AppError(
    'HOOK_INVALID',
    `--name "${shown}": a hook's name starts with a letter or digit, then letters, digits, _, - or ., 64 characters at most ` +
      '(e.g. crm or crm.example.com)',
  );
}

/** The name a hook gets when none is given: its URL's host (with its port, `-` for `:`), e.g. `crm.example.com`, `localhost-8080`. */
export function nameFromUrl(url: URL): string {
  const host = url.host.replace(/^\[|\]/g, '').replace(/[^A-Za-z0-9_.-]+/g, '-');
  const name = host.replace(/^[^A-Za-z0-9]+/, '').slice(0, 60);
  return HOOK_NAME.test(name) ? name : 'hook';
}

/** HOOK_NOT_FOUND for `name`. */
export function hookNotFound(name: string): AppError {
  const shown = name.length > 80 ? `${name.slice(0, 77)}…` : name;
  return new AppError('HOOK_NOT_FOUND', `No hook "${shown}" (see \`campaign hooks list\`)`);
}
