import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/index.js';
import {
  PHONE_NUMBER_ID,
  TOKEN,
  getJson,
  send,
  startTestSandbox,
  template,
  text,
  type JsonReply,
  type ReplyBody,
} from './sandbox-helpers.js';

/**
 * Meta's media endpoints over real HTTP (Meta's media page): upload (multipart), get the
 * URL and what Meta says of the file, download, delete; the types and sizes Meta takes
 * (131053 for the others); and a media ID used in a template's image header and in an
 * image message (one naming no upload is taken and reported failed, 131053).
 */
let sandbox: Sandbox | undefined;

afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
const auth = { authorization: `Bearer ${TOKEN}` };

interface MediaInfo {
  messaging_product: string;
  url: string;
  mime_type: string;
  sha256: string;
  file_size: string;
  id: string;
}

/** `POST /{phone-number-id}/media` as Meta's curl example sends it; `type` as a field only when given. */
async function upload(
  s: Sandbox,
  file: { bytes: Buffer; partType: string } | undefined,
  fields: Record<string, string> = { messaging_product: 'whatsapp' },
  options: { phoneNumberId?: string; token?: string | null; version?: string } = {},
): Promise<JsonReply<ReplyBody & { id?: string }>> {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  if (file !== undefined) form.append('file', new Blob([file.bytes], { type: file.partType }), 'upload.bin');
  const token = options.token === undefined ? TOKEN : options.token;
  const version = options.version ?? 'v25.0/';
  const response = await fetch(`${s.url}/${version}${options.phoneNumberId ?? PHONE_NUMBER_ID}/media`, {
    method: 'POST',
    body: form,
    headers: token === null ? {} : { authorization: `Bearer ${token}` },
  });
  return { status: response.status, body: (await response.json()) as ReplyBody & { id?: string } };
}

async function uploadPng(s: Sandbox): Promise<string> {
  const reply = await upload(s, { bytes: PNG, partType: 'image/png' }, { messaging_product: 'whatsapp', type: 'image/png' });
  expect(reply.status).toBe(200);
  expect(reply.body.id).toMatch(/^\d{16}$/);
  return reply.body.id ?? '';
}

async function deleteMedia(s: Sandbox, id: string, query = ''): Promise<JsonReply> {
  const response = await fetch(`${s.url}/v25.0/${id}${query}`, { method: 'DELETE', headers: auth });
  return { status: response.status, body: (await response.json()) as ReplyBody };
}

const promo = (image: Record<string, unknown>) =>
  template('spring_promo', [
    { type: 'header', parameters: [{ type: 'image', image }] },
    { type: 'body', parameters: [text('Ana'), text('25%')] },
  ]);

describe('sandbox media (Meta: media page)', () => {
  it('uploads a file and answers {id}; GET /{media-id} gives its URL, type, sha256 and size; its URL downloads it (token)', async () => {
    sandbox = await startTestSandbox();
    const id = await uploadPng(sandbox);
    const info = await getJson<MediaInfo>(`${sandbox.url}/v25.0/${id}`);
    expect(info.status).toBe(200);
    expect(info.body).toEqual({
      messaging_product: 'whatsapp',
      url: expect.any(String) as string,
      mime_type: 'image/png',
      sha256: createHash('sha256').update(PNG).digest('hex'),
      file_size: String(PNG.length),
      id,
    });
    // No version: the same answer.
    expect((await getJson<MediaInfo>(`${sandbox.url}/${id}?phone_number_id=${PHONE_NUMBER_ID}`)).body.id).toBe(id);

    const download = await fetch(info.body.url, { headers: auth });
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await download.arrayBuffer())).toEqual(PNG);
    // "If you omit your token, the request will fail."
    expect((await fetch(info.body.url)).status).toBe(401);
  });

  it("takes the type from the file part when no type field is sent, as Meta's own curl example does", async () => {
    sandbox = await startTestSandbox();
    const reply = await upload(sandbox, { bytes: Buffer.from('%PDF-1.4'), partType: 'application/pdf' });
    expect(reply.status).toBe(200);
    expect((await getJson<MediaInfo>(`${sandbox.url}/v25.0/${reply.body.id ?? ''}`)).body.mime_type).toBe('application/pdf');
  });

  it("refuses with 131053 what Meta's media types table does not take: another type, an image over 5 MB, an empty file", async () => {
    sandbox = await startTestSandbox();
    const cases: [string, { bytes: Buffer; partType: string }][] = [
      ['gif', { bytes: PNG, partType: 'image/gif' }],
      ['octet-stream', { bytes: PNG, partType: 'application/octet-stream' }],
      ['big jpeg', { bytes: Buffer.alloc(5 * 1024 * 1024 + 1), partType: 'image/jpeg' }],
      ['big sticker', { bytes: Buffer.alloc(500 * 1024 + 1), partType: 'image/webp' }],
      ['empty', { bytes: Buffer.alloc(0), partType: 'image/png' }],
    ];
    for (const [label, file] of cases) {
      const reply = await upload(sandbox, file);
      expect(reply.status, label).toBe(400);
      expect(reply.body.error, label).toMatchObject({ code: 131053, message: '(#131053) Media upload error' });
    }
    // A 16 MB video is within its limit.
    expect((await upload(sandbox, { bytes: Buffer.alloc(16 * 1024 * 1024), partType: 'video/mp4' })).status).toBe(200);
  });

  it('refuses a malformed upload with 100, an unknown number with 100/33, and a missing token with 104', async () => {
    sandbox = await startTestSandbox();
    const file = { bytes: PNG, partType: 'image/png' };
    const missingProduct = await upload(sandbox, file, {});
    expect(missingProduct.body.error).toMatchObject({ code: 100, message: '(#100) The parameter messaging_product is required.' });
    expect((await upload(sandbox, file, { messaging_product: 'sms' })).body.error?.code).toBe(100);
    expect((await upload(sandbox, undefined)).body.error).toMatchObject({ code: 100, message: '(#100) The parameter file is required.' });
    expect((await upload(sandbox, file, { messaging_product: 'whatsapp', caption: 'x' })).body.error?.code).toBe(100);
    const json = await fetch(`${sandbox.url}/v25.0/${PHONE_NUMBER_ID}/media`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ messaging_product: 'whatsapp', file: '@/local/path/file.jpg' }),
    });
    expect(json.status).toBe(400);
    const unknownNumber = await upload(sandbox, file, undefined, { phoneNumberId: '999' });
    expect(unknownNumber.body.error).toMatchObject({ code: 100, error_subcode: 33 });
    const noToken = await upload(sandbox, file, undefined, { token: null });
    expect(noToken.status).toBe(401);
    expect(noToken.body.error?.code).toBe(104);
    expect((await upload(sandbox, file, undefined, { version: '' })).status).toBe(200);
  });

  it('deletes an upload: {success: true}, then the ID names nothing; phone_number_id must be the uploading number', async () => {
    sandbox = await startTestSandbox({ phoneNumberIds: [PHONE_NUMBER_ID, '999'] });
    const id = await uploadPng(sandbox);
    const wrongNumber = await getJson(`${sandbox.url}/v25.0/${id}?phone_number_id=999`);
    expect(wrongNumber.body.error?.code).toBe(100);
    expect((await deleteMedia(sandbox, id, '?phone_number_id=999')).body.error?.code).toBe(100);
    expect(await deleteMedia(sandbox, id, `?phone_number_id=${PHONE_NUMBER_ID}`)).toEqual({ status: 200, body: { success: true } });
    expect((await getJson(`${sandbox.url}/v25.0/${id}`)).body.error).toMatchObject({ code: 100, error_subcode: 33 });
    expect((await deleteMedia(sandbox, id)).body.error).toMatchObject({ code: 100, error_subcode: 33 });
  });

  it("sends an uploaded media ID in a template's image header and in an image; an unknown or deleted ID fails later, 131053", async () => {
    sandbox = await startTestSandbox();
    const id = await uploadPng(sandbox);
    expect((await send(sandbox, promo({ id }))).status).toBe(200);
    sandbox.openServiceWindow('+447700900123');
    const image = { messaging_product: 'whatsapp', to: '+447700900123', type: 'image', image: { id, caption: 'Spring' } };
    expect((await send(sandbox, image)).status).toBe(200);

    // Meta takes the send and fetches the media afterwards: a media ID naming no upload comes back
    // as a `failed` status with 131053, never as a 400 (sandbox-template-kinds-media.test.ts follows the webhook).
    expect((await send(sandbox, promo({ id: '1234567890' }))).status).toBe(200);
    await deleteMedia(sandbox, id);
    expect((await send(sandbox, promo({ id }))).status).toBe(200);
    expect((await send(sandbox, image)).status).toBe(200);
    expect(sandbox.accepted().map((m) => m.failure?.code)).toEqual([undefined, undefined, 131053, 131053, 131053]);
    expect(sandbox.accepted()[2]?.failure?.details).toMatch(/media ID 1234567890 names no upload of this phone number/);
  });

  it('forgets an upload 30 days after it was made, as Meta does: a send naming it then fails with 131053', async () => {
    let now = Date.parse('2026-11-25T12:00:00Z');
    sandbox = await startTestSandbox({ clock: () => now });
    const id = await uploadPng(sandbox);
    now += 30 * 24 * 60 * 60 * 1000 - 1;
    expect((await send(sandbox, promo({ id }))).status).toBe(200);
    now += 1;
    expect((await send(sandbox, promo({ id }))).status).toBe(200);
    expect(sandbox.accepted().map((m) => m.failure?.code)).toEqual([undefined, 131053]);
    expect((await getJson(`${sandbox.url}/v25.0/${id}`)).body.error?.error_subcode).toBe(33);
  });
});
