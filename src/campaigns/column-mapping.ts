import { AppError } from '../errors/app-error.js';

export interface ColumnSpec {
  phoneColumn: string;
  paramColumns: readonly string[];
  headerImageColumn?: string | undefined;
}

export interface ColumnMapping {
  fieldCount: number;
  phone: number;
  params: { column: string; index: number }[];
  headerImage: { column: string; index: number } | undefined;
}

/** Finds every named column in the header, or refuses the whole file naming what is missing. */
export function resolveColumns(header: readonly string[], spec: ColumnSpec, file: string): ColumnMapping {
  const missing: string[] = [];
  const indexOf = (column: string): number => {
    const index = header.indexOf(column);
    if (index < 0) missing.push(column);
    return index;
  };
  const phone = indexOf(spec.phoneColumn);
  const params = spec.paramColumns.map((column) => ({ column, index: indexOf(column) }));
  const headerImage =
    spec.headerImageColumn === undefined ? undefined : { column: spec.headerImageColumn, index: indexOf(spec.headerImageColumn) };
  if (missing.length > 0) {
    throw new AppError(
      'CSV_HEADER_INVALID',
      `${file}: the header has no column ${missing.map((c) => `"${c}"`).join(', ')}. ` +
        `Columns found: ${header.map((c) => `"${c}"`).join(', ')}. ` +
        'Fix the header or the --phone-column/--params/--header-image-column options; nothing was enqueued.',
    );
  }
  return { fieldCount: header.length, phone, params, headerImage };
}
