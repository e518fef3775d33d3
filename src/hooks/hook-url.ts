import { AppError } from '../errors/app-error.js';

/**
 * A hook's URL: http(s), absolute. Credentials in it are refused: the URL is shown by `hooks
 * list` and on the pages, and the signature is what authenticates a delivery.
 */
export function parseHookUrl(given: string): URL {
  let url: URL;
  try {
    url = new URL(given.trim());
  } catch {
    throw new AppError(
      'HOOK_INVALID',
      `URL "${shortened(given)}" is not a URL: give an absolute http(s) URL, e.g. https://crm.example.com/hooks/campaigns`,
    );
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new AppError('HOOK_INVALID', `URL "${shortened(given)}": a hook's URL is http:// or https://, not ${url.protocol}`);
  if (url.username !== '' || url.password !== '')
    throw new AppError(
      'HOOK_INVALID',
      "URL: leave the user name and password out of a hook's URL (it is shown by `hooks list`); verify the X-Campaign-Signature instead",
    );
  url.hash = '';
  return url;
}

function shortened(text: string): string {
  return text.length > 80 ? `${text.slice(0, 77)}…` : text;
}
