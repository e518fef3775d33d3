import type { MediaProblem } from './media-problem.js';
import type { MediaSource } from './media-source.js';

/** Media read whole: its bytes and the type its server (or its file name) declared. */
export interface FetchedMedia {
  ok: true;
  bytes: Buffer;
  /** The Content-Type answered (or the type of a local file's extension), undefined when none; reported, never trusted alone. */
  declaredType: string | undefined;
  /** Where the bytes came from, after redirects, as a detail may show it (describeUrl, or the file's path). */
  from: string;
}

export type MediaReadResult = FetchedMedia | MediaProblem;

/** Reads a source's bytes, at most `maxBytes` of them (MediaSourceReader; tests give fakes). */
export interface MediaReader {
  read(source: MediaSource, maxBytes: number): Promise<MediaReadResult>;
}
