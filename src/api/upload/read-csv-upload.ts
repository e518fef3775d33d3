import type { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import { ProblemsError } from '../problem.js';
import { DEFAULT_UPLOAD_NAME, tooLarge, type SpooledFile, type UploadSpool } from './upload-spool.js';

/** Room a multipart body takes beside its one file: the part's headers and the boundaries. */
const MULTIPART_OVERHEAD_BYTES = 64 * 1024;

/**
 * Reads a CSV upload that has no spec (an audience's import) into `spool`, never holding it in
 * memory: a `text/csv` body, or `multipart/form-data` with one `file` part (what a browser's
 * form sends). The same limit as a campaign's upload: a body declared larger than `maxBytes`
 * is refused before a byte is read, one that grows past it as it streams.
 */
export async function readCsvUpload(
  request: FastifyRequest,
  spool: UploadSpool,
  maxBytes: number,
): Promise<SpooledFile & { fileName: string }> {
  const multipart = request.isMultipart();
  const declared = Number(request.headers['content-length'] ?? NaN);
  if (declared > maxBytes + (multipart ? MULTIPART_OVERHEAD_BYTES : 0)) throw tooLarge(maxBytes);
  if (!multipart) return { ...(await spool.write(request.body as Readable, DEFAULT_UPLOAD_NAME, maxBytes)), fileName: DEFAULT_UPLOAD_NAME };
  let file: (SpooledFile & { fileName: string }) | undefined;
  for await (const part of request.parts()) {
    if (part.type === 'file' && part.fieldname === 'file' && file === undefined) {
      const stream = part.file as Readable & { truncated?: boolean };
      const written = await spool.write(stream, part.filename, maxBytes, () => stream.truncated === true);
      file = { ...written, fileName: part.filename || DEFAULT_UPLOAD_NAME };
    } else {
      if (part.type === 'file') part.file.resume();
      throw invalid(
        part.fieldname,
        `no part "${part.fieldname.slice(0, 40)}" (${part.type}) is read here: send the CSV as one \`file\` part`,
      );
    }
  }
  if (file === undefined) throw invalid('file', 'the multipart upload has no `file` part (the CSV)');
  return file;
}

function invalid(field: string, detail: string): ProblemsError {
  return new ProblemsError([{ code: 'API_REQUEST_INVALID', detail, field }], { code: 'API_REQUEST_INVALID', status: 400 });
}
