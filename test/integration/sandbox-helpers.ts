import { request } from 'undici';
import { loadTemplatesFile, startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/index.js';

/** Shared by the sandbox integration tests: start on port 0 with the sample templates, send. */
export const TOKEN = 'sandbox-test-token';
export const PHONE_NUMBER_ID = '106540352242922';

export async function startTestSandbox(options: Partial<SandboxOptions> = {}): Promise<Sandbox> {
  const templates = await loadTemplatesFile('samples/templates.json');
  return startSandbox({ templates, accessToken: TOKEN, ...options });
}

/** The fields the tests read from Meta's answers (send, error, templates list); all optional. */
export interface ReplyBody {
  error?: {
    code: number;
    message: string;
    type: string;
    fbtrace_id: string;
    error_subcode?: number;
    error_data?: { messaging_product: string; details: string };
  };
  contacts?: { input: string; wa_id: string }[];
  messages?: { id: string; message_status?: string }[];
  data?: { name: string; language: string; status: string }[];
  paging?: { next?: string; cursors?: { before: string; after: string } };
}

export interface JsonReply<T = ReplyBody> {
  status: number;
  body: T;
}

export async function send(
  sandbox: Sandbox,
  body: unknown,
  options: { token?: string | null; phoneNumberId?: string; version?: string; headersTimeout?: number } = {},
): Promise<JsonReply> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  const token = options.token === undefined ? TOKEN : options.token;
  if (token !== null) headers['authorization'] = `Bearer ${token}`;
  const response = await request(`${sandbox.url}/${options.version ?? 'v25.0'}/${options.phoneNumberId ?? PHONE_NUMBER_ID}/messages`, {
    method: 'POST',
    headers,
    body: typeof body === 'string' ? body : JSON.stringify(body),
    ...(options.headersTimeout === undefined ? {} : { headersTimeout: options.headersTimeout }),
  });
  return { status: response.statusCode, body: (await response.body.json()) as ReplyBody };
}

export async function getJson<T = ReplyBody>(url: string, token: string | null = TOKEN): Promise<JsonReply<T>> {
  const response = await request(url, token === null ? {} : { headers: { authorization: `Bearer ${token}` } });
  return { status: response.statusCode, body: (await response.body.json()) as T };
}

export async function postJson<T = Record<string, unknown> | null>(url: string, body: unknown): Promise<JsonReply<T>> {
  const response = await request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.body.text();
  return { status: response.statusCode, body: (text === '' ? null : JSON.parse(text)) as T };
}

export const text = (value: string, parameterName?: string) =>
  parameterName === undefined ? { type: 'text', text: value } : { type: 'text', text: value, parameter_name: parameterName };

export function orderUpdate(to = '+447700900123', name = 'Ana', order = 'A-10023'): Record<string, unknown> {
  return {
    messaging_product: 'whatsapp',
    to,
    type: 'template',
    template: {
      name: 'order_update',
      language: { code: 'en_US' },
      components: [{ type: 'body', parameters: [text(name), text(order)] }],
    },
  };
}

export function template(name: string, components: unknown[], to = '+447700900123'): Record<string, unknown> {
  return {
    messaging_product: 'whatsapp',
    to,
    type: 'template',
    template: { name, language: { code: 'en_US' }, components },
  };
}
