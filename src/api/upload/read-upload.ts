import type { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../../errors/app-error.js';
import { ProblemsError } from '../problem.js';
import { DEFAULT_UPLOAD_NAME, tooLarge, type UploadSpool } from './upload-spool.js';

/**
 * A spooled upload: its spec (JSON as sent, undefined when none) and the CSV on disk. A
 * multipart body without a file part has none (a spec naming an audience needs none; the
 * use case refuses any other spec without a file).
 */
export interface SpooledUpload {
  specText: string | undefined;
  path: string | undefined;
  /** The SHA-256 of the CSV's bytes. */
  sha256: string | undefined;
  /** The sender's name of the file (a multipart filename), or DEFAULT_UPLOAD_NAME. */
  fileName: string | undefined;
}

/** Room a multipart body takes beside its file: the spec part (at most 1 MB) and the part headers. */
const MULTIPART_OVERHEAD_BYTES = 1024 * 1024 + 64 * 1024;

/**
 * Reads a campaign upload into `spool` without holding it in memory: a `text/csv` body with
 * the spec in the query (`specQuery`), or `multipart/form-data` with a `spec` field and a
 * `file` part, in either order. A body declared larger than `maxBytes` is refused before a
 * byte is read.
 */
export async function readUpload(
  request: FastifyRequest,
  spool: UploadSpool,
  options: { maxBytes: number; specQuery: string | undefined },
): Promise<SpooledUpload> {
  const multipart = request.isMultipart();
  const declared = Number(request.headers['content-length'] ?? NaN);
  if (declared > options.maxBytes + (multipart ? MULTIPART_OVERHEAD_BYTES : 0)) throw tooLarge(options.maxBytes);
  if (!multipart) {
    const written = await spool.write(request.body as Readable, DEFAULT_UPLOAD_NAME, options.maxBytes);
    return { specText: options.specQuery, ...written, fileName: DEFAULT_UPLOAD_NAME };
  }
  if (options.specQuery !== undefined) throw invalid('spec', 'a multipart upload gives its spec as the `spec` part, not in the query');
  let specText: string | undefined;
  let file: { path: string; sha256: string; fileName: string } | undefined;
  for await (const part of request.parts()) {
    if (part.type === 'field' && part.fieldname === 'spec') {
      // A part sent as application/json comes parsed (@fastify/multipart): the spec either way.
      specText = typeof part.value === 'string' ? part.value : JSON.stringify(part.value);
    } else if (part.type === 'file' && part.fieldname === 'spec') {
      // `curl -F spec=@spec.json`: the spec as a small file part, read whole (at most the spec's 1 MB).
      specText = await readSpecPart(part.file);
    } else if (part.type === 'file' && part.fieldname === 'file') {
      const stream = part.file as Readable & { truncated?: boolean };
      const written = await spool.write(stream, part.filename, options.maxBytes, () => stream.truncated === true);
      file = { ...written, fileName: part.filename || DEFAULT_UPLOAD_NAME };
    } else {
      if (part.type === 'file') part.file.resume();
      throw invalid(part.fieldname, `no part "${part.fieldname.slice(0, 40)}" (${part.type}): send a \`spec\` field and a \`file\` part`);
    }
  }
  if (file === undefined) return { specText, path: undefined, sha256: undefined, fileName: undefined };
  return { specText, ...file };
}

/** The largest spec, as a field or a file part. */
const SPEC_MAX_BYTES = 1024 * 1024;

async function readSpecPart(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    bytes += chunk.length;
    if (bytes > SPEC_MAX_BYTES) {
      stream.resume();
      throw invalid('spec', `the spec part is larger than ${SPEC_MAX_BYTES} bytes: send the CSV as the \`file\` part`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function invalid(field: string, detail: string): AppError {
  return new ProblemsError([{ code: 'API_REQUEST_INVALID', detail, field }], { code: 'API_REQUEST_INVALID', status: 400 });
}
