import { AppError } from '../../errors/app-error.js';
import type { CampaignSpec } from './campaign-spec.js';
import type { FieldNames } from './field-names.js';

/** Click tracking as the spec asks for it: the column of each row's destination; undefined when clicks are not tracked. */
export interface ClickOption {
  urlColumn: string;
}

/**
 * `trackClicks` and `csv.clickUrlColumn` go together: a tracked link needs a destination per row,
 * and a destination column means nothing without tracking. What the template and PUBLIC_URL say
 * is checked where the template is found (src/clicks/click-template.ts).
 */
export function checkClickOption(spec: CampaignSpec, names: FieldNames): ClickOption | undefined {
  const column = spec.csv.clickUrlColumn;
  const track = names.trackClicks;
  const urls = names['csv.clickUrlColumn'];
  if (spec.trackClicks === true) {
    if (column === undefined)
      throw new AppError(
        'CLICK_TRACKING_INVALID',
        `${track} needs ${urls} COLUMN: the column of the CSV that holds each row's destination (an http(s) URL)`,
      );
    return { urlColumn: column };
  }
  if (column !== undefined)
    throw new AppError('CLICK_TRACKING_INVALID', `${urls} is the destination of a tracked link: give ${track} too, or drop ${urls}`);
  return undefined;
}
