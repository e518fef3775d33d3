import { randomBytes } from 'node:crypto';

/**
 * Meta's synchronous error envelope (reference §2.1) and the HTTP status each code comes
 * with (reference §2.3, the older table that still lists statuses). The sandbox decides
 * *which* error applies elsewhere; this module only knows how Meta words and wraps it, so
 * every route answers in exactly one shape.
 */
interface CodeInfo {
  status: number;
  title: string;
}

const CODES: Record<number, CodeInfo> = {
  100: { status: 400, title: 'Invalid parameter' },
  190: { status: 401, title: 'Invalid OAuth access token.' },
  2500: { status: 400, title: 'Unknown path components' },
  // Integrity errors are 403 Forbidden (Meta's error-codes page,
  // https://developers.facebook.com/documentation/business-messaging/whatsapp/support/error-codes).
  368: { status: 403, title: 'Temporarily blocked for policies violations' },
  130429: { status: 400, title: 'Rate limit hit' },
  130472: { status: 400, title: "User's number is part of an experiment" },
  131000: { status: 500, title: 'Something went wrong' },
  131008: { status: 400, title: 'Required parameter is missing' },
  131009: { status: 400, title: 'Parameter value is not valid' },
  131026: { status: 400, title: 'Message Undeliverable' },
  131030: { status: 400, title: 'Recipient phone number not in allowed list' },
  131031: { status: 403, title: 'Account has been locked' },
  131047: { status: 400, title: 'Re-engagement message' },
  131048: { status: 400, title: 'Spam rate limit hit' },
  131049: { status: 400, title: 'This message was not delivered to maintain healthy ecosystem engagement.' },
  131050: {
    status: 400,
    title: 'Unable to deliver the message. This recipient has chosen to stop receiving marketing messages on WhatsApp from your business.',
  },
  131051: { status: 400, title: 'Unsupported message type' },
  131053: { status: 400, title: 'Media upload error' },
  131056: { status: 400, title: '(Business Account, Consumer Account) pair rate limit hit' },
  131057: { status: 500, title: 'Account in maintenance mode' },
  // Meta's business-scoped user ID page gives this code's details only; the title is the sandbox's.
  131062: { status: 400, title: 'Business-scoped user ID recipients are not supported for this message' },
  132000: { status: 400, title: 'Number of parameters does not match the expected number of params' },
  132001: { status: 404, title: 'Template name does not exist in the translation' },
  132005: { status: 400, title: 'Translated text too long' },
  132012: { status: 400, title: 'Parameter format does not match format in the created template' },
  132015: { status: 400, title: 'Template is Paused' },
  132016: { status: 400, title: 'Template is disabled' },
  132018: { status: 400, title: 'There was an issue with the parameters in your template.' },
  133004: { status: 503, title: 'Server Temporarily Unavailable' },
  // The Marketing Messages API's codes (v23); titles are the sandbox's wording of reference §3's meanings.
  134100: { status: 400, title: 'Marketing messages only' },
  134101: { status: 400, title: 'Template not yet available for marketing messages' },
  134102: { status: 400, title: 'Business not eligible for marketing messages' },
  134103: { status: 400, title: 'Marketing messages not available' },
};

/** What went wrong, before it is dressed as Meta's body. */
export interface GraphErrorSpec {
  code: number;
  /**
   * `error_data.details`. Absent for the generic Graph answers that carry none (a missing
   * required field, an unknown object ID: reference §2.1).
   */
  details?: string;
  /** Overrides the table's status (fault injection answers with the configured 5xx). */
  status?: number;
  /** Overrides `(#code) title`: generic Graph errors word their message themselves. */
  message?: string;
  subcode?: number;
  /** Default OAuthException; object and path errors are GraphMethodException (reference §2.1). */
  type?: GraphErrorType;
}

export type GraphErrorType = 'OAuthException' | 'GraphMethodException';

export interface GraphErrorBody {
  error: {
    message: string;
    type: GraphErrorType;
    code: number;
    error_subcode?: number;
    error_data?: { messaging_product: 'whatsapp'; details: string };
    fbtrace_id: string;
  };
}

export interface GraphErrorReply {
  status: number;
  body: GraphErrorBody;
}

export function graphError(code: number, details: string): GraphErrorSpec {
  return { code, details };
}

/**
 * A required field that is absent: Meta answers the generic Graph 100 worded
 * `(#100) The parameter … is required.` with no error_data (reference §2.1, §7 item 1), not
 * 131008, which is for a field that is there with no value in it.
 */
/**
 * Graph's answer for a path ID that names no object it can load (a phone number, a WABA): 400 /
 * 100, error_subcode 33, GraphMethodException, worded after the request's method.
 */
export function unknownObjectError(id: string, method: 'get' | 'post' | 'delete'): GraphErrorSpec {
  return {
    code: 100,
    subcode: 33,
    type: 'GraphMethodException',
    message:
      `Unsupported ${method} request. Object with ID '${id}' does not exist, cannot be loaded due to ` +
      'missing permissions, or does not support this operation. Please read the Graph API documentation at ' +
      'https://developers.facebook.com/docs/graph-api',
  };
}

export function missingParameter(path: string): GraphErrorSpec {
  return { code: 100, message: `(#100) The parameter ${path} is required.` };
}

/**
 * Thrown inside the validators so deeply nested checks can stop at the first problem, the
 * way Meta reports only one error per request; the public validators catch it and return
 * a plain result.
 */
export class GraphRejection extends Error {
  readonly spec: GraphErrorSpec;

  constructor(code: number, details: string);
  constructor(spec: GraphErrorSpec);
  constructor(codeOrSpec: number | GraphErrorSpec, details = '') {
    const spec = typeof codeOrSpec === 'number' ? graphError(codeOrSpec, details) : codeOrSpec;
    super(spec.details ?? spec.message ?? `Graph error ${spec.code}`);
    this.spec = spec;
  }

  /** The rejection for an absent required field (see missingParameter). */
  static missing(path: string): GraphRejection {
    return new GraphRejection(missingParameter(path));
  }
}

/** Meta's trace ids are short opaque base64 strings; fresh per answer so logs can be matched. */
export function newTraceId(): string {
  return `A${randomBytes(8).toString('base64url')}`;
}

export function httpStatusOf(code: number): number {
  return CODES[code]?.status ?? 400;
}

export function toGraphError(spec: GraphErrorSpec): GraphErrorReply {
  const info = CODES[spec.code];
  const title = info?.title ?? 'Invalid parameter';
  return {
    status: spec.status ?? info?.status ?? 400,
    body: {
      error: {
        message: spec.message ?? `(#${spec.code}) ${title}`,
        type: spec.type ?? 'OAuthException',
        code: spec.code,
        ...(spec.subcode === undefined ? {} : { error_subcode: spec.subcode }),
        ...(spec.details === undefined ? {} : { error_data: { messaging_product: 'whatsapp', details: spec.details } }),
        fbtrace_id: newTraceId(),
      },
    },
  };
}

/** The title Meta gives a code (also the `title`/`message` of a webhook error object). */
export function titleOf(code: number): string | undefined {
  return CODES[code]?.title;
}

/**
 * A request that carries no token at all: Graph's generic 104, OAuthException, no subcode
 * (reference cloud-api.md line 246 and §7 item 6, line 580). The reference does not establish
 * its HTTP status, so it keeps the status of the other token errors.
 */
export function noTokenError(): GraphErrorReply {
  const message = 'An access token is required to request this resource.';
  return { status: 401, body: { error: { message, type: 'OAuthException', code: 104, fbtrace_id: newTraceId() } } };
}

/**
 * Token failures are generic Graph errors, not WhatsApp ones: no `(#190)` prefix, a
 * subcode, and no `error_data` (see examples/error.token-expired.json).
 */
export function tokenError(subcode: 463 | 467): GraphErrorReply {
  const message = subcode === 463 ? 'Error validating access token: Session has expired.' : 'Invalid OAuth access token.';
  return {
    status: 401,
    body: {
      error: { message, type: 'OAuthException', code: 190, error_subcode: subcode, fbtrace_id: newTraceId() },
    },
  };
}
