import { basename } from 'node:path';
import type { SendOutcome } from '../../campaigns/ingest/producer.js';
import { summaryJson } from '../../app/views/send-summary-view.js';

/**
 * `send --json`'s summary as the API answers it: files by name, never by their path on the
 * service's host (`rejectsFile` is `<id>.rejects.csv`, served by GET /campaigns/{id}/rejects;
 * the rate card is its file name). The CLI prints the paths: its user is on that host.
 */
export function summaryAnswer(result: SendOutcome): Record<string, unknown> {
  const summary = summaryJson(result, result.sendRate);
  const plan = summary.plan as Record<string, unknown>;
  const card = result.rateCard;
  const named = (text: string | null): string | null => (text === null || card === null ? text : text.split(card).join(basename(card)));
  return {
    ...summary,
    rejectsFile: result.rejectsFile === undefined ? null : basename(result.rejectsFile),
    plan: {
      ...plan,
      costReason: named(result.costReason),
      rateCard: card === null ? null : basename(card),
      ...(result.maxCost === undefined ? {} : { maxCost: { ...result.maxCost, refused: named(result.maxCost.refused) } }),
    },
  };
}
