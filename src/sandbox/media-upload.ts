import type { FastifyRequest } from 'fastify';
import { missingParameter, type GraphErrorSpec } from './graph-error.js';
import { INVALID } from './json-checks.js';
import { MAX_MEDIA_BYTES, SUPPORTED_MIME_TYPES, bareMimeType, maxBytesOf } from './media-types.js';

/**
 * The body of `POST /{phone-number-id}/media` as Meta's media page describes it:
 * `multipart/form-data` with `messaging_product=whatsapp`, the `file`, and the file's `type`
 * (a MIME type). Meta's own examples give the type only on the file part
 * (`-F 'file=@…;type=video/mp4'`), so a `type` field is optional and wins when both are
 * given. A type Meta does not take, an empty file or one over its type's limit is refused
 * with 131053, the code Meta's error-codes page gives for media it could not take ("such as
 * an unsupported media type"); a malformed form is refused with 100.
 */
export interface MediaUpload {
  mimeType: string;
  bytes: Buffer;
}

/** The multipart limits: one file, at most the largest Meta takes, and the two small fields. */
export const MEDIA_MULTIPART_LIMITS = { fileSize: MAX_MEDIA_BYTES, files: 1, fields: 2, parts: 3, fieldSize: 1024 };

const MEDIA_ERROR = 131053;

export async function readMediaUpload(request: FastifyRequest): Promise<MediaUpload | GraphErrorSpec> {
  if (!request.isMultipart()) return missingParameter('file');
  const fields = new Map<string, string>();
  let file: { bytes: Buffer; mimeType: string } | undefined;
  try {
    for await (const part of request.parts()) {
      if (part.type === 'file' && part.fieldname === 'file') {
        file = { bytes: await part.toBuffer(), mimeType: part.mimetype };
      } else if (part.type === 'field' && (part.fieldname === 'messaging_product' || part.fieldname === 'type')) {
        fields.set(part.fieldname, String(part.value));
      } else {
        if (part.type === 'file') part.file.resume();
        return {
          code: INVALID,
          details: `Unexpected key "${part.fieldname}" on param "media upload": send messaging_product, file and type`,
        };
      }
    }
  } catch (error) {
    return multipartError(error);
  }
  const product = fields.get('messaging_product');
  if (product === undefined) return missingParameter('messaging_product');
  if (product !== 'whatsapp') return { code: INVALID, details: `Parameter messaging_product must be "whatsapp", got "${product}"` };
  if (file === undefined) return missingParameter('file');
  return checkedFile(file.bytes, fields.get('type') ?? file.mimeType);
}

function checkedFile(bytes: Buffer, declared: string): MediaUpload | GraphErrorSpec {
  const mimeType = bareMimeType(declared);
  const maxBytes = maxBytesOf(mimeType);
  if (maxBytes === undefined) {
    return {
      code: MEDIA_ERROR,
      details:
        `Param file must be a file with one of the following types: ${SUPPORTED_MIME_TYPES.join(', ')}. ` +
        `Received file of type '${mimeType}'.`,
    };
  }
  if (bytes.length === 0) return { code: MEDIA_ERROR, details: 'Param file is empty' };
  if (bytes.length > maxBytes) {
    return { code: MEDIA_ERROR, details: `Param file is ${bytes.length} bytes; a ${mimeType} file may have at most ${maxBytes} bytes` };
  }
  return { mimeType, bytes };
}

/**
 * A file over the largest limit is 131053 like any file too large; any other trouble reading
 * the form (too many parts, a malformed or cut-short body) is the client's, answered 100.
 */
function multipartError(error: unknown): GraphErrorSpec {
  if ((error as { code?: unknown } | null)?.code === 'FST_REQ_FILE_TOO_LARGE') {
    return { code: MEDIA_ERROR, details: `Param file is larger than ${MAX_MEDIA_BYTES} bytes, the most Meta takes of any type` };
  }
  const why = error instanceof Error ? error.message : String(error);
  return { code: INVALID, details: `The multipart body could not be read: ${why}` };
}
