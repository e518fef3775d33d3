/**
 * What a file is, read from its bytes (its "magic numbers"), not from the Content-Type a server
 * sent or the name it has: servers label files wrongly (an error page as `image/png`, a PNG as
 * `image/jpeg`), and Meta judges the bytes. The types recognised are the ones Meta takes plus
 * the usual wrong guesses (GIF, WebM, QuickTime, HEIC, ZIP, HTML), so a refusal can name what
 * the file actually is.
 */
export interface SniffedType {
  mimeType: string;
  /** How a detail names it: "a PNG image". */
  what: string;
  /** WebP only: an animated image (a VP8X header with the animation flag). */
  animated?: boolean;
}

const ascii = (bytes: Uint8Array, start: number, end: number): string => String.fromCharCode(...bytes.subarray(start, end));
const startsWith = (bytes: Uint8Array, signature: readonly number[]): boolean => signature.every((byte, i) => bytes[i] === byte);

const OLE2 = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];

const SIGNATURES: readonly { bytes: readonly number[]; type: SniffedType }[] = [
  { bytes: [0xff, 0xd8, 0xff], type: { mimeType: 'image/jpeg', what: 'a JPEG image' } },
  { bytes: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], type: { mimeType: 'image/png', what: 'a PNG image' } },
  { bytes: [0x47, 0x49, 0x46, 0x38], type: { mimeType: 'image/gif', what: 'a GIF image (WhatsApp plays animations from MP4 files)' } },
  { bytes: [0x1a, 0x45, 0xdf, 0xa3], type: { mimeType: 'video/webm', what: 'a WebM/Matroska video' } },
  { bytes: [0x4f, 0x67, 0x67, 0x53], type: { mimeType: 'audio/ogg', what: 'an Ogg audio file' } },
  { bytes: [0x49, 0x44, 0x33], type: { mimeType: 'audio/mpeg', what: 'an MP3 audio file' } },
  { bytes: [0x42, 0x4d], type: { mimeType: 'image/bmp', what: 'a BMP image' } },
];

export function sniffMediaType(bytes: Uint8Array): SniffedType | undefined {
  for (const signature of SIGNATURES) if (startsWith(bytes, signature.bytes)) return signature.type;
  if (bytes.length >= 12 && ascii(bytes, 0, 4) === 'RIFF' && ascii(bytes, 8, 12) === 'WEBP') return webp(bytes);
  if (bytes.length >= 12 && ascii(bytes, 4, 8) === 'ftyp') return isoMedia(ascii(bytes, 8, 12));
  if (ascii(bytes, 0, Math.min(bytes.length, 1024)).includes('%PDF-')) return { mimeType: 'application/pdf', what: 'a PDF document' };
  if (startsWith(bytes, OLE2)) return legacyOffice(bytes);
  if (startsWith(bytes, [0x50, 0x4b, 0x03, 0x04])) return officeOpenXml(bytes);
  return text(bytes);
}

function webp(bytes: Uint8Array): SniffedType {
  // An extended WebP (VP8X) says in its flags byte whether it is animated (bit 1).
  const animated = ascii(bytes, 12, 16) === 'VP8X' && ((bytes[20] ?? 0) & 0x02) !== 0;
  return { mimeType: 'image/webp', what: animated ? 'an animated WebP image' : 'a WebP image', animated };
}

/** ISO base media files (MP4, 3GPP, QuickTime, HEIC…) name their kind by the `ftyp` box's major brand. */
function isoMedia(brand: string): SniffedType {
  if (brand.startsWith('3gp')) return { mimeType: 'video/3gpp', what: 'a 3GPP video' };
  if (brand.startsWith('3g2')) return { mimeType: 'video/3gpp2', what: 'a 3GPP2 video (.3g2)' };
  if (brand === 'qt  ') return { mimeType: 'video/quicktime', what: 'a QuickTime video (.mov)' };
  if (brand === 'M4A ' || brand === 'M4B ') return { mimeType: 'audio/mp4', what: 'an MP4 audio file (.m4a)' };
  if (['heic', 'heix', 'hevc', 'heim', 'heis', 'mif1', 'msf1'].includes(brand)) return { mimeType: 'image/heic', what: 'a HEIC image' };
  if (brand === 'avif' || brand === 'avis') return { mimeType: 'image/avif', what: 'an AVIF image' };
  return { mimeType: 'video/mp4', what: 'an MP4 video' };
}

/** Which Office program wrote a compound (OLE2) file: the name of its main stream, stored in UTF-16LE in the directory. */
function legacyOffice(bytes: Uint8Array): SniffedType {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const has = (name: string) => buffer.includes(Buffer.from(name, 'utf16le'));
  if (has('WordDocument')) return { mimeType: 'application/msword', what: 'a Word document (.doc)' };
  if (has('Workbook') || has('Book')) return { mimeType: 'application/vnd.ms-excel', what: 'an Excel workbook (.xls)' };
  if (has('PowerPoint Document')) return { mimeType: 'application/vnd.ms-powerpoint', what: 'a PowerPoint presentation (.ppt)' };
  return { mimeType: 'application/x-ole-storage', what: 'a compound file that is not a Word, Excel or PowerPoint file' };
}

/** A ZIP is a .docx, .xlsx or .pptx when it holds that format's main part (its name is plain text in the archive). */
function officeOpenXml(bytes: Uint8Array): SniffedType {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const has = (name: string) => buffer.includes(name, 0, 'latin1');
  const base = 'application/vnd.openxmlformats-officedocument';
  if (has('word/document.xml')) return { mimeType: `${base}.wordprocessingml.document`, what: 'a Word document (.docx)' };
  if (has('xl/workbook.xml')) return { mimeType: `${base}.spreadsheetml.sheet`, what: 'an Excel workbook (.xlsx)' };
  if (has('ppt/presentation.xml')) return { mimeType: `${base}.presentationml.presentation`, what: 'a PowerPoint presentation (.pptx)' };
  return { mimeType: 'application/zip', what: 'a ZIP archive' };
}

const TEXT_SAMPLE = 64 * 1024;

/**
 * Text has no signature: its first 64 KiB must be UTF-8 without NUL or other control
 * characters (tab, line breaks and form feed aside). Text opening with `<` is markup: the web
 * page a server sends instead of the file (an error or a login page), not a document.
 */
function text(bytes: Uint8Array): SniffedType | undefined {
  const sample = bytes.subarray(0, TEXT_SAMPLE);
  let decoded: string;
  try {
    // `stream: true`: a character cut at the sample's end is not an error.
    decoded = new TextDecoder('utf-8', { fatal: true }).decode(sample, { stream: true });
  } catch {
    return undefined;
  }
  // eslint-disable-next-line no-control-regex -- the control characters are what is looked for
  if (/[\x00-\x08\x0b\x0e-\x1f\x7f]/.test(decoded)) return undefined;
  if (/^\uFEFF?\s*</.test(decoded)) return { mimeType: 'text/html', what: 'an HTML or XML page (a web page, not the file)' };
  return { mimeType: 'text/plain', what: 'plain text' };
}
