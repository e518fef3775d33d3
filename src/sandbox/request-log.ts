import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { NOT_JSON } from './route-support.js';

/**
 * The sandbox's capture (`requestLog` in startSandbox, default SANDBOX_REQUEST_LOG): every
 * exchange on Meta's routes and every webhook it posts, appended as NDJSON to a file of this
 * sandbox's own (`sandbox-<pid>-<port>.ndjson`) in the directory given. The test suite reads
 * it to check every request the product sent, and every answer and webhook the sandbox gave,
 * against Meta's OpenAPI (test/captured).
 *
 * When it is off nothing is hooked, so the benchmarks' thousands of sends a second pay nothing.
 * When it is on, a line is queued on a write stream and never awaited; a disk that falls
 * behind costs memory up to MAX_QUEUED_BYTES, then lines are dropped (and said so), and a
 * failure to write is logged once and ends the capture, never the request.
 */

/** One request on Meta's routes and what the sandbox answered. */
export interface CapturedExchange {
  kind: 'exchange';
  /** When the request arrived (ISO 8601, the machine's clock). */
  at: string;
  method: string;
  /** Without the query. */
  path: string;
  /** Every query parameter but `access_token`, which is dropped. */
  query: Record<string, string | string[]>;
  userAgent: string | null;
  contentType: string | null;
  /** The parsed JSON body; absent when there was none, or it was multipart or not JSON. */
  body?: unknown;
  /** A body was sent that is not JSON. */
  bodyNotJson?: true;
  /** A multipart body: its fields, and its files without their bytes. */
  multipart?: { fields: { name: string; value: string }[]; files: CapturedFilePart[] };
  /** The answer's HTTP status; null when none was given (the timeout fault holds a request until the client gives up). */
  status: number | null;
  /** The answer, parsed, when it was JSON. */
  answer?: unknown;
  /** An answer that was not JSON (a media download): its type and size. */
  answerContentType?: string;
  answerBytes?: number;
}

export interface CapturedFilePart {
  name: string;
  filename: string;
  type: string;
  /** Bytes read from the part (all of it, once the route has consumed it). */
  size: number;
}

/** One webhook body the sandbox posted (once, however many times it retried), exactly the bytes it signed. */
export interface CapturedWebhook {
  kind: 'webhook';
  at: string;
  url: string;
  payload: string;
}

export type CapturedLine = CapturedExchange | CapturedWebhook;

/** What a slow disk may hold back before lines are dropped instead of queued. */
const MAX_QUEUED_BYTES = 32 * 1024 * 1024;
/** Form field values are small (messaging_product, type); a longer one is cut to this. */
const MAX_FIELD_CHARS = 200;

interface MultipartRecord {
  fields: { name: string; value: string }[];
  files: { name: string; filename: string; type: string; stream: { bytesRead?: number } }[];
}

interface Pending {
  at: string;
  status?: number;
  payload?: unknown;
  contentType?: string;
  multipart?: MultipartRecord;
}

export class RequestLog {
  readonly #dir: string;
  readonly #logger: Logger | undefined;
  #stream: WriteStream | undefined;
  #failed = false;
  #dropping = false;
  #dropped = 0;
  /** Requests whose response has not ended yet; a held one is written when the log closes. */
  readonly #pending = new Map<FastifyRequest, Pending>();

  constructor(dir: string, logger: Logger | undefined) {
    this.#dir = dir;
    this.#logger = logger;
  }

  /** Opens `sandbox-<pid>-<port>.ndjson` once the port is known; lines before that are dropped (there are none: nothing listens yet). */
  start(port: number): void {
    const file = join(this.#dir, `sandbox-${process.pid}-${port}.ndjson`);
    try {
      mkdirSync(this.#dir, { recursive: true });
    } catch (error) {
      this.#fail(error, file);
      return;
    }
    const stream = createWriteStream(file, { flags: 'a' });
    stream.on('error', (error) => this.#fail(error, file));
    this.#stream = stream;
  }

  /** Hooks the server so each exchange on Meta's routes (not /_sandbox/…) is captured when its response ends. */
  captureExchanges(app: FastifyInstance): void {
    app.addHook('onRequest', (request, reply, done) => {
      if (!request.url.startsWith('/_sandbox/')) {
        this.#pending.set(request, { at: new Date().toISOString() });
        // 'close' also comes for a request never answered, when its client gives up or the sandbox closes.
        reply.raw.once('close', () => this.#exchange(request));
      }
      done();
    });
    app.addHook('preHandler', (request, _reply, done) => {
      const pending = this.#pending.get(request);
      if (pending !== undefined) recordMultipart(request, pending);
      done();
    });
    app.addHook('onSend', (request, reply, payload, done) => {
      const pending = this.#pending.get(request);
      if (pending !== undefined) {
        pending.status = reply.statusCode;
        pending.payload = payload;
        const type = contentTypeOf(reply);
        if (type !== undefined) pending.contentType = type;
      }
      done(null, payload);
    });
  }

  /** The webhook body as posted (the exact bytes signed), and where to. */
  webhook(url: string, payload: string): void {
    const line: CapturedWebhook = { kind: 'webhook', at: new Date().toISOString(), url, payload };
    this.#write(`${JSON.stringify(line)}\n`);
  }

  /** Writes the requests still unanswered (held by the timeout fault), flushes what is queued and closes the file. */
  async close(): Promise<void> {
    for (const request of [...this.#pending.keys()]) this.#exchange(request);
    const stream = this.#stream;
    this.#stream = undefined;
    if (stream === undefined || stream.destroyed) return;
    await new Promise<void>((resolve) => {
      stream.once('close', resolve);
      stream.end();
    });
  }

  #exchange(request: FastifyRequest): void {
    const pending = this.#pending.get(request);
    if (pending === undefined) return;
    this.#pending.delete(request);
    const line: CapturedExchange = {
      kind: 'exchange',
      at: pending.at,
      method: request.method,
      path: request.url.split('?')[0] ?? '',
      query: queryOf(request.query),
      userAgent: request.headers['user-agent'] ?? null,
      contentType: request.headers['content-type'] ?? null,
      status: pending.status ?? null,
    };
    if (pending.multipart !== undefined) line.multipart = multipartOf(pending.multipart);
    else if (request.body === NOT_JSON) line.bodyNotJson = true;
    else if (request.body !== undefined) line.body = request.body;
    const { payload, contentType } = pending;
    const json = contentType?.includes('json') === true;
    // A JSON answer is already the serialised text: spliced in as it is rather than parsed and serialised again.
    if (json && typeof payload === 'string' && payload !== '' && !payload.includes('\n')) {
      const head = JSON.stringify(line);
      this.#write(`${head.slice(0, -1)},"answer":${payload}}\n`);
      return;
    }
    if (typeof payload === 'string' || Buffer.isBuffer(payload)) {
      const text = typeof payload === 'string' ? payload : undefined;
      if (json && text !== undefined && text !== '') line.answer = parsedOrText(text);
      else if (payload.length > 0) {
        line.answerContentType = contentType ?? 'unknown';
        line.answerBytes = Buffer.byteLength(payload);
      }
    }
    this.#write(`${JSON.stringify(line)}\n`);
  }

  #write(line: string): void {
    const stream = this.#stream;
    if (stream === undefined || this.#failed) return;
    if (stream.writableLength > MAX_QUEUED_BYTES) {
      this.#dropped += 1;
      if (!this.#dropping) {
        this.#dropping = true;
        this.#warn({ dir: this.#dir }, 'sandbox request log: the disk is behind; dropping lines until it catches up');
      }
      return;
    }
    if (this.#dropping) {
      this.#dropping = false;
      this.#warn({ dir: this.#dir, dropped: this.#dropped }, 'sandbox request log: writing again after dropping lines');
    }
    stream.write(line);
  }

  #fail(error: unknown, file: string): void {
    if (this.#failed) return;
    this.#failed = true;
    const message = error instanceof Error ? error.message : String(error);
    if (this.#logger !== undefined) this.#logger.error({ err: error, file }, 'sandbox request log: cannot write; capture stopped');
    else process.emitWarning(`sandbox request log: cannot write ${file} (${message}); capture stopped`);
  }

  #warn(fields: Record<string, unknown>, message: string): void {
    if (this.#logger !== undefined) this.#logger.warn(fields, message);
    else process.emitWarning(message);
  }
}

function contentTypeOf(reply: FastifyReply): string | undefined {
  const type = reply.getHeader('content-type');
  return typeof type === 'string' ? type : undefined;
}

function queryOf(query: unknown): Record<string, string | string[]> {
  const kept: Record<string, string | string[]> = {};
  if (typeof query !== 'object' || query === null) return kept;
  for (const [name, value] of Object.entries(query)) {
    if (name === 'access_token') continue;
    if (typeof value === 'string' || Array.isArray(value)) kept[name] = value as string | string[];
  }
  return kept;
}

function parsedOrText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

interface MultipartPart {
  type: 'file' | 'field';
  fieldname: string;
  filename?: string;
  mimetype?: string;
  value?: unknown;
  file?: { bytesRead?: number };
}

type PartsFunction = (...args: unknown[]) => AsyncIterable<MultipartPart>;

/**
 * A multipart request's parts are read by the route as a stream (media-upload.ts): the
 * iterator it asks for is wrapped so each part is noted as it goes by, files by name, type and
 * the bytes the route read, never their content.
 */
function recordMultipart(request: FastifyRequest, pending: Pending): void {
  const multipartRequest = request as unknown as { parts?: PartsFunction; isMultipart?: () => boolean };
  const parts = multipartRequest.parts;
  if (typeof parts !== 'function' || multipartRequest.isMultipart?.() !== true) return;
  const record: MultipartRecord = { fields: [], files: [] };
  pending.multipart = record;
  multipartRequest.parts = function (this: unknown, ...args: unknown[]) {
    return noted(parts.apply(this, args), record);
  };
}

async function* noted(parts: AsyncIterable<MultipartPart>, record: MultipartRecord): AsyncGenerator<MultipartPart> {
  for await (const part of parts) {
    if (part.type === 'file') {
      record.files.push({ name: part.fieldname, filename: part.filename ?? '', type: part.mimetype ?? '', stream: part.file ?? {} });
    } else {
      record.fields.push({ name: part.fieldname, value: String(part.value).slice(0, MAX_FIELD_CHARS) });
    }
    yield part;
  }
}

function multipartOf(record: MultipartRecord): NonNullable<CapturedExchange['multipart']> {
  return {
    fields: record.fields,
    files: record.files.map(({ stream, ...file }) => ({ ...file, size: stream.bytesRead ?? 0 })),
  };
}
