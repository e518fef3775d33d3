import { AppError } from '../errors/app-error.js';
import type { TemplateRequirements, UrlButtonRequirement } from '../templates/template-requirements.js';

/** The path under PUBLIC_URL that `serve` answers tracked links at: `${PUBLIC_URL}/c/<token>`. */
export const CLICK_PATH = '/c/';

/**
 * The slot (`button.<index>.url`) whose value is each row's click token: the template's URL
 * button whose link is exactly `${publicUrl}/c/{{…}}` (a dynamic suffix after the click path of
 * this product's public address). Refused with CLICK_TRACKING_INVALID, saying what to change:
 * no PUBLIC_URL, no URL button with a dynamic suffix, or buttons that point elsewhere (each named
 * with where it points and where it should). `flag` is how the caller names `trackClicks`.
 */
export function trackedButtonSlot(requirements: TemplateRequirements, publicUrl: string | undefined, flag: string): string {
  const base = trackedBase(publicUrl, flag);
  const template = `Template ${requirements.name} (${requirements.language})`;
  const dynamic = requirements.urlButtons.filter((button) => button.variables.length > 0);
  if (dynamic.length === 0) {
    throw new AppError(
      'CLICK_TRACKING_INVALID',
      `${flag}: ${template} has no URL button with a dynamic suffix; its link must be ${base}{{1}} (have the template's button ` +
        'edited to it and approved again, or send without ' +
        flag +
        ')',
    );
  }
  const tracked = dynamic.find((button) => pointsAt(button, base));
  if (tracked !== undefined) return `button.${tracked.index}.url`;
  const where = dynamic.map((button) => `button ${button.index} links to ${baseOf(button.url)}`).join('; ');
  throw new AppError(
    'CLICK_TRACKING_INVALID',
    `${flag}: ${template}'s URL button must point at this product's public address: ${where}, but a tracked link's base ` +
      `URL is ${base} (PUBLIC_URL${CLICK_PATH}), then {{1}}. Edit the button to ${base}{{1}}, or set PUBLIC_URL to the address ` +
      '`serve` answers at',
  );
}

/** `${PUBLIC_URL}/c/`, or the refusal when PUBLIC_URL is not set. */
export function trackedBase(publicUrl: string | undefined, flag: string): string {
  if (publicUrl === undefined) {
    throw new AppError(
      'CLICK_TRACKING_INVALID',
      `${flag} needs PUBLIC_URL: the public address \`serve\` answers at (e.g. https://links.example.com), where the ` +
        "template's tracked button points (PUBLIC_URL/c/{{1}})",
    );
  }
  return `${publicUrl}${CLICK_PATH}`;
}

/** Whether the button's link is the base and one variable after it, nothing more (compared as URLs: a host's case aside). */
function pointsAt(button: UrlButtonRequirement, base: string): boolean {
  if (button.variables.length !== 1 || !/\{\{[^{}]+\}\}$/.test(button.url)) return false;
  return sameUrl(baseOf(button.url), base);
}

/** The link up to its first variable. */
function baseOf(url: string): string {
  const at = url.indexOf('{{');
  return at < 0 ? url : url.slice(0, at);
}

function sameUrl(a: string, b: string): boolean {
  try {
    return new URL(a).href === new URL(b).href;
  } catch {
    return a === b;
  }
}
