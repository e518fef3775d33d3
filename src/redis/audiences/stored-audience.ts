import type { AudienceImportCounts } from '../../audiences/audience.js';
import { unpackValues } from '../../audiences/attribute-packing.js';

/** An audience's meta hash as read back. */
export interface StoredAudience {
  name: string;
  columns: string[];
  createdAt: number;
  updatedAt: number;
  importedFrom: string;
  lastImport: AudienceImportCounts;
}

const COUNTS = ['read', 'added', 'updated', 'rejected', 'duplicates'] as const;

/** The meta hash's fields for an import's end (columns apart: they are written before the contacts). */
export function metaFields(audience: Omit<StoredAudience, 'name' | 'createdAt'>): Record<string, string> {
  const fields: Record<string, string> = {
    columns: JSON.stringify(audience.columns),
    updatedAt: String(audience.updatedAt),
    importedFrom: audience.importedFrom,
  };
  for (const count of COUNTS) fields[count] = String(audience.lastImport[count]);
  return fields;
}

/** The meta hash (HGETALL) as an audience; undefined when it is empty (no such audience). */
export function storedAudience(name: string, hash: Record<string, string>): StoredAudience | undefined {
  if (Object.keys(hash).length === 0) return undefined;
  const number = (field: string): number => {
    const value = Number(hash[field] ?? 0);
    return Number.isFinite(value) ? value : 0;
  };
  const lastImport = { read: 0, added: 0, updated: 0, rejected: 0, duplicates: 0 };
  for (const count of COUNTS) lastImport[count] = number(count);
  return {
    name,
    columns: unpackValues(hash.columns),
    createdAt: number('createdAt'),
    updatedAt: number('updatedAt'),
    importedFrom: hash.importedFrom ?? '',
    lastImport,
  };
}
