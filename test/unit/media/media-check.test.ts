import { describe, expect, it } from 'vitest';
import { checkMedia } from '../../../src/media/media-check.js';
import { maxBytesOfFormat, type MediaFormat } from '../../../src/media/media-formats.js';
import { sniffMediaType } from '../../../src/media/media-sniff.js';
import { mediaBytes } from './media-bytes.js';

const MIB = 1024 * 1024;
const what = 'https://cdn.example/banner';

describe('sniffMediaType: the bytes, not the name or the Content-Type', () => {
  it.each([
    ['jpeg', 'image/jpeg'],
    ['png', 'image/png'],
    ['gif', 'image/gif'],
    ['webp', 'image/webp'],
    ['animatedWebp', 'image/webp'],
    ['mp4', 'video/mp4'],
    ['threeGpp', 'video/3gpp'],
    ['mov', 'video/quicktime'],
    ['heic', 'image/heic'],
    ['m4a', 'audio/mp4'],
    ['pdf', 'application/pdf'],
    ['doc', 'application/msword'],
    ['xls', 'application/vnd.ms-excel'],
    ['ppt', 'application/vnd.ms-powerpoint'],
    ['docx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'],
    ['xlsx', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
    ['pptx', 'application/vnd.openxmlformats-officedocument.presentationml.presentation'],
    ['zip', 'application/zip'],
    ['text', 'text/plain'],
    ['html', 'text/html'],
  ] as const)('%s → %s', (kind, mimeType) => {
    expect(sniffMediaType(mediaBytes[kind]())?.mimeType).toBe(mimeType);
  });

  it('tells an animated WebP from a static one', () => {
    expect(sniffMediaType(mediaBytes.animatedWebp())?.animated).toBe(true);
    expect(sniffMediaType(mediaBytes.webp())?.animated).toBe(false);
  });

  it('binary bytes with no known signature are nothing; so is invalid UTF-8 text', () => {
    expect(sniffMediaType(mediaBytes.junk())).toBeUndefined();
    expect(sniffMediaType(Buffer.from([0x41, 0x42, 0xc3, 0x28, 0x41]))).toBeUndefined();
  });

  it('text whose sample ends in the middle of a character is still text', () => {
    const bytes = Buffer.concat([Buffer.alloc(64 * 1024 - 1, 0x61), Buffer.from('é')]);
    expect(sniffMediaType(bytes)?.mimeType).toBe('text/plain');
  });
});

describe('checkMedia: the type against the header format', () => {
  it.each([
    ['IMAGE', 'jpeg', 'image/jpeg'],
    ['IMAGE', 'png', 'image/png'],
    ['VIDEO', 'mp4', 'video/mp4'],
    ['VIDEO', 'threeGpp', 'video/3gpp'],
    ['GIF', 'mp4', 'video/mp4'],
    ['STICKER', 'webp', 'image/webp'],
    ['DOCUMENT', 'pdf', 'application/pdf'],
    ['DOCUMENT', 'docx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'],
    ['DOCUMENT', 'xls', 'application/vnd.ms-excel'],
    ['DOCUMENT', 'text', 'text/plain'],
  ] as const)('a %s header takes %s, uploaded as %s', (format, kind, mimeType) => {
    const result = checkMedia({ bytes: mediaBytes[kind](), declaredType: 'application/octet-stream', what }, format);
    expect(result).toMatchObject({ ok: true, mimeType, size: mediaBytes[kind]().length });
    expect(result.ok && result.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('the bytes decide: a PNG served as image/jpeg is uploaded as image/png', () => {
    expect(checkMedia({ bytes: mediaBytes.png(), declaredType: 'image/jpeg', what }, 'IMAGE')).toMatchObject({
      ok: true,
      mimeType: 'image/png',
    });
  });

  it.each([
    ['VIDEO', 'png', 'image/png', 'is a PNG image (served as image/png); a VIDEO header takes MP4 or 3GPP: link an MP4'],
    ['IMAGE', 'html', 'text/html; charset=utf-8', 'is an HTML or XML page (a web page, not the file) (served as text/html)'],
    ['IMAGE', 'gif', 'image/gif', 'a GIF image'],
    ['GIF', 'gif', 'image/gif', 'convert the animation to an MP4 file'],
    ['GIF', 'threeGpp', undefined, 'a GIF header takes MP4'],
    ['IMAGE', 'heic', 'image/heic', 'is a HEIC image'],
    ['VIDEO', 'mov', 'video/quicktime', 'a QuickTime video (.mov)'],
    ['DOCUMENT', 'zip', 'application/zip', 'a ZIP archive'],
    ['DOCUMENT', 'html', 'text/html', 'not a page that shows it'],
    ['STICKER', 'png', 'image/png', 'a STICKER header takes WebP'],
    ['IMAGE', 'junk', 'image/png', 'not a file type WhatsApp takes'],
  ] as const)('a %s header refuses %s (declared %s): MEDIA_TYPE_MISMATCH', (format, kind, declaredType, detail) => {
    const result = checkMedia({ bytes: mediaBytes[kind](), declaredType, what }, format);
    expect(result).toMatchObject({ ok: false, code: 'MEDIA_TYPE_MISMATCH' });
    expect(!result.ok && result.detail).toContain(detail);
    expect(!result.ok && result.detail).toContain(what);
  });

  it('an empty body is a mismatch that says so', () => {
    const result = checkMedia({ bytes: Buffer.alloc(0), declaredType: 'image/png', what }, 'IMAGE');
    expect(result).toMatchObject({ ok: false, code: 'MEDIA_TYPE_MISMATCH' });
    expect(!result.ok && result.detail).toContain('is empty');
  });
});

describe("checkMedia: Meta's size limits", () => {
  it.each([
    ['IMAGE', 'jpeg', 5 * MIB, '5 MB'],
    ['IMAGE', 'png', 5 * MIB, '5 MB'],
    ['VIDEO', 'mp4', 16 * MIB, '16 MB'],
    ['VIDEO', 'threeGpp', 16 * MIB, '16 MB'],
    ['GIF', 'mp4', 3.5 * MIB, '3.5 MB'],
    ['STICKER', 'animatedWebp', 500 * 1024, '500 KB'],
    ['STICKER', 'webp', 100 * 1024, '100 KB'],
  ] as const)('%s %s: %d bytes pass, one more is MEDIA_TOO_LARGE (%s)', (format, kind, limit, shown) => {
    expect(checkMedia({ bytes: mediaBytes[kind](limit), declaredType: undefined, what }, format).ok).toBe(true);
    const result = checkMedia({ bytes: mediaBytes[kind](limit + 1), declaredType: undefined, what }, format);
    expect(result).toMatchObject({ ok: false, code: 'MEDIA_TOO_LARGE' });
    expect(!result.ok && result.detail).toContain(`may be at most ${shown} (${limit} bytes)`);
    expect(!result.ok && result.detail).toContain('compress it');
  });

  it('a document may have 100 MB, not one byte more', () => {
    const result = checkMedia({ bytes: mediaBytes.pdf(100 * MIB + 1), declaredType: 'application/pdf', what }, 'DOCUMENT');
    expect(result).toMatchObject({ ok: false, code: 'MEDIA_TOO_LARGE' });
    expect(maxBytesOfFormat('DOCUMENT')).toBe(100 * MIB);
  });

  it('a download stops at the largest file of the format', () => {
    const limits = Object.fromEntries(
      (['IMAGE', 'VIDEO', 'DOCUMENT', 'STICKER', 'GIF'] as MediaFormat[]).map((f) => [f, maxBytesOfFormat(f)]),
    );
    expect(limits).toEqual({ IMAGE: 5 * MIB, VIDEO: 16 * MIB, DOCUMENT: 100 * MIB, STICKER: 500 * 1024, GIF: 3.5 * MIB });
  });

  it('maxBytes lowers the limit, never raises it', () => {
    expect(checkMedia({ bytes: mediaBytes.png(101), declaredType: undefined, what }, 'IMAGE', { maxBytes: 100 })).toMatchObject({
      code: 'MEDIA_TOO_LARGE',
    });
    expect(
      checkMedia({ bytes: mediaBytes.png(5 * MIB + 1), declaredType: undefined, what }, 'IMAGE', { maxBytes: 50 * MIB }),
    ).toMatchObject({
      code: 'MEDIA_TOO_LARGE',
    });
  });
});
