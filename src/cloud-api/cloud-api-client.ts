import { Agent, type Dispatcher } from 'undici';
import type { Secret } from '../config/secret.js';
import { CloudApiBadResponseError, CloudApiTransportError } from './cloud-api-errors.js';
import { postExchange, type PostAnswer, type RequestWrite } from './post-exchange.js';
import { graphError, transportFailure } from './graph-answers.js';
import { safeJson } from './safe-json.js';
import { messageBody, messagePath } from './message-body.js';
import type { OutboundMessage } from './outbound-message.js';
import { userAgent } from './user-agent.js';
import { sendResponseSchema } from './response-schemas.js';

export interface SendResult {
  wamid: string;
  waId: string;
  input: string;
  /** `accepted` or `held_for_quality_assessment`; absent means accepted (reference §1.5). */
  messageStatus: string;
}

export interface CloudApiClientOptions {
  baseUrl: string;
  apiVersion: string;
  accessToken: Secret;
  timeoutMs: number;
  /** Sockets per origin; enough for the worker's concurrency. */
  connections?: number;
  /** For tests (undici MockAgent); by default a pooled keep-alive Agent. */
  dispatcher?: Dispatcher;
}

/** Sends messages to the Cloud API and maps every answer to a typed result or a typed error. */
export class CloudApiClient {
  readonly #options: CloudApiClientOptions;
  readonly #dispatcher: Dispatcher;
  readonly #ownsDispatcher: boolean;
  /** The same for every request: built once, not once per message. */
  readonly #headers: Record<string, string>;
  /** The API's origin, and its path up to the version: a request names them apart, so no URL is parsed per message. */
  readonly #origin: string;
  readonly #versionPath: string;

  constructor(options: CloudApiClientOptions) {
    this.#options = options;
    this.#headers = {
      authorization: `Bearer ${options.accessToken.reveal()}`,
      'content-type': 'application/json',
      'user-agent': userAgent(),
    };
    const base = new URL(options.baseUrl);
    this.#origin = base.origin;
    this.#versionPath = `${base.pathname.replace(/\/+$/, '')}/${options.apiVersion}`;
    this.#ownsDispatcher = options.dispatcher === undefined;
    this.#dispatcher =
      options.dispatcher ??
      new Agent({
        connections: options.connections ?? 128,
        keepAliveTimeout: 30_000,
        connect: { timeout: Math.min(options.timeoutMs, 10_000) },
      });
  }

  /** `onWritten`: called once the request is written to its socket, with when (the pacer corrects a late send's stamp with it). */
  async send(phoneNumberId: string, message: OutboundMessage, onWritten?: (write: RequestWrite) => void): Promise<SendResult> {
    const { timeoutMs } = this.#options;
    let answer: PostAnswer;
    try {
      const request = {
        origin: this.#origin,
        path: `${this.#versionPath}/${phoneNumberId}/${messagePath(message)}`,
        headers: this.#headers,
        body: JSON.stringify(messageBody(message)),
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      };
      answer = await postExchange(this.#dispatcher, request, onWritten);
    } catch (error) {
      throw new CloudApiTransportError(transportFailure(error), error);
    }
    const { statusCode, text } = answer;
    if (statusCode >= 200 && statusCode < 300) return parseSuccess(statusCode, text);
    throw graphError(statusCode, text);
  }

  async close(): Promise<void> {
    if (this.#ownsDispatcher) await this.#dispatcher.close();
  }
}

function parseSuccess(status: number, text: string): SendResult {
  const parsed = sendResponseSchema.safeParse(safeJson(text));
  if (!parsed.success) throw new CloudApiBadResponseError(status, parsed.error.issues[0]?.message ?? 'invalid');
  const message = parsed.data.messages[0];
  const contact = parsed.data.contacts[0];
  if (message === undefined || contact === undefined) throw new CloudApiBadResponseError(status, 'empty arrays');
  return {
    wamid: message.id,
    waId: contact.wa_id,
    input: contact.input,
    messageStatus: message.message_status ?? 'accepted',
  };
}
