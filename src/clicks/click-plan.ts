import { AppError } from '../errors/app-error.js';
import type { ColumnOptions } from '../campaigns/slot-mapping.js';
import type { FieldNames } from '../campaigns/spec/field-names.js';
import type { TemplateRequirements } from '../templates/template-requirements.js';

/** What a campaign that tracks clicks keeps: the slot of its tracked button, and the column of each row's destination. */
export interface TrackedClicks {
  slot: string;
  column: string;
}

/**
 * The column options with the tracked button's slot filled from the destination column: the
 * ingest reads each row's destination there, checks it and puts the row's token in its place.
 * Refused (CLICK_TRACKING_INVALID) when the file lacks the column, or another option already fills
 * that button (its value is the token, nothing else).
 */
export function trackedColumns(
  columns: ColumnOptions,
  requirements: TemplateRequirements,
  clicks: TrackedClicks,
  header: readonly string[],
  names: FieldNames,
): ColumnOptions {
  const { slot, column } = clicks;
  const option = names['csv.clickUrlColumn'];
  if (!header.includes(column)) {
    throw new AppError(
      'CLICK_TRACKING_INVALID',
      `the header has no column "${column}" (${option}), the destination of each row's tracked link. Columns found: ` +
        `${header.map((c) => `"${c}"`).join(', ')}. Nothing was enqueued.`,
    );
  }
  const given = columns.paramColumns?.[slot];
  const urlSlots = requirements.slots.filter((s) => s.kind === 'url' && s.card === undefined && s.sameAs === undefined);
  const shorthand = columns.buttonUrlColumns?.[urlSlots.findIndex((s) => s.name === slot)];
  if (given !== undefined || shorthand !== undefined) {
    const by = given !== undefined ? `${names['csv.paramColumns']} ${slot}=${given}` : `${names['csv.buttonUrlColumns']} ${shorthand}`;
    throw new AppError(
      'CLICK_TRACKING_INVALID',
      `${by} fills ${slot}, the tracked button, whose suffix is each row's click token with ${names.trackClicks}: ` +
        `leave it out (the destination comes from ${option})`,
    );
  }
  return { ...columns, paramColumns: { ...columns.paramColumns, [slot]: column } };
}
