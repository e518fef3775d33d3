import { AppError } from '../errors/app-error.js';

/** Magic numbers of files people pick by mistake instead of the CSV export. */
const SIGNATURES: readonly { bytes: readonly number[]; what: string }[] = [
  { bytes: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], what: 'a PNG image' },
  { bytes: [0xff, 0xd8, 0xff], what: 'a JPEG image' },
  { bytes: [0x47, 0x49, 0x46, 0x38], what: 'a GIF image' }, // GIF8(7|9)a
  { bytes: [0x50, 0x4b, 0x03, 0x04], what: 'a ZIP archive, e.g. an Excel workbook (.xlsx)' },
  { bytes: [0x50, 0x4b, 0x05, 0x06], what: 'a ZIP archive, e.g. an Excel workbook (.xlsx)' }, // empty archive
  { bytes: [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1], what: 'an old Excel workbook (.xls) or another Office document' },
  { bytes: [0x25, 0x50, 0x44, 0x46, 0x2d], what: 'a PDF document' }, // %PDF-
  { bytes: [0x1f, 0x8b], what: 'a gzip-compressed file' },
];

const HTML_STARTS = ['<!doctype html', '<html'];

/**
 * What the file's first bytes say it is, when that is a known format other than CSV text;
 * undefined otherwise (a CSV, or anything we cannot name). Such files would otherwise be
 * refused as "not UTF-8", or worse read as one odd column; naming them tells the user what
 * they picked.
 */
export function knownNonCsvFormat(head: Uint8Array): string | undefined {
  for (const { bytes, what } of SIGNATURES) {
    if (bytes.every((byte, index) => head[index] === byte)) return what;
  }
  if (head[0] === 0x52 && head[1] === 0x49 && head[2] === 0x46 && head[3] === 0x46 && ascii(head, 8, 4) === 'WEBP') return 'a WebP image';
  // HTML (a web page saved, or an error page downloaded instead of the export): after
  // optional BOMs and whitespace, `<!DOCTYPE html` or `<html`, in any case.
  let start = 0;
  for (;;) {
    if (head[start] === 0xef && head[start + 1] === 0xbb && head[start + 2] === 0xbf) start += 3;
    else if (head[start] === 0x20 || head[start] === 0x09 || head[start] === 0x0a || head[start] === 0x0d) start++;
    else break;
  }
  const text = ascii(head, start, 14).toLowerCase();
  if (HTML_STARTS.some((tag) => text.startsWith(tag))) return 'an HTML page';
  return undefined;
}

/** CSV_NOT_CSV when the head is a known non-CSV format. */
export function refuseKnownNonCsv(path: string, head: Uint8Array): void {
  const what = knownNonCsvFormat(head);
  if (what === undefined) return;
  throw new AppError(
    'CSV_NOT_CSV',
    `${path} is ${what}, not CSV text; export the data as CSV UTF-8 (in Excel: Save As → ` +
      `"CSV UTF-8 (Comma delimited)"). Nothing was created.`,
  );
}

function ascii(bytes: Uint8Array, start: number, length: number): string {
  let text = '';
  for (let i = start; i < start + length && i < bytes.length; i++) text += String.fromCharCode(bytes[i] ?? 0);
  return text;
}
