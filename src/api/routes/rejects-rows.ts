import type { z } from 'zod';
import { readRejects } from '../../campaigns/ingest/rejects-read.js';
import type { rejectsJsonSchema } from '../schemas/directory-schemas.js';

type RejectsJson = z.infer<typeof rejectsJsonSchema>;

/**
 * The first `limit` rows of a rejects file, as a dry run's answer shows them (readRejects:
 * values as they were, the column a detail names), read only as far as needed: a rejects
 * file may be as long as the campaign's file.
 */
export async function firstRejects(path: string, limit: number): Promise<RejectsJson> {
  const rows = await readRejects(path, limit + 1);
  return { rows: rows.slice(0, limit), truncated: rows.length > limit };
}
