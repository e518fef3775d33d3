/**
 * Why a header's media cannot be used, as a value rather than a thrown error: a campaign's
 * producer reports it for the rows (or the campaign) that name the media, and the worker for
 * the row it is sending. The codes are stable (decisions branch on them); `detail` says what
 * was wrong and how to fix it, and never carries a credential: a URL appears without its query
 * or user info (describeUrl), and the access token never reaches this module.
 */
export const MEDIA_PROBLEM_CODES = {
  MEDIA_UNREACHABLE:
    'The media could not be read: DNS failure, a private or refused address, a timeout, an HTTP error status, too many redirects, ' +
    'or a local file that cannot be opened.',
  MEDIA_TYPE_MISMATCH: "The media's bytes are not a file type the header's format takes (JPEG/PNG for an image, MP4/3GPP for a video…).",
  MEDIA_TOO_LARGE: "The media is larger than Meta's limit for its type (5 MB for an image, 16 MB for a video, 100 MB for a document…).",
  MEDIA_UPLOAD_REFUSED: 'The Cloud API refused the upload of the media itself (code 131053): its type or size is not one Meta takes.',
} as const;

export type MediaProblemCode = keyof typeof MEDIA_PROBLEM_CODES;

export interface MediaProblem {
  ok: false;
  code: MediaProblemCode;
  detail: string;
}

export function mediaProblem(code: MediaProblemCode, detail: string): MediaProblem {
  return { ok: false, code, detail };
}

const MAX_URL_TEXT = 200;

/**
 * A URL as a detail may show it: scheme, host and path only. The query and the user info are
 * dropped: a signed link (S3, GCS) carries its signature there, which is as good as a password.
 */
export function describeUrl(url: URL | string): string {
  let parsed: URL;
  try {
    parsed = typeof url === 'string' ? new URL(url) : url;
  } catch {
    return '(a text that is not a URL)';
  }
  const text = `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  return text.length > MAX_URL_TEXT ? `${text.slice(0, MAX_URL_TEXT)}…` : text;
}
