import type { MediaFetcher } from './media-fetch.js';
import { readLocalMediaFile } from './local-media-file.js';
import type { MediaReader, MediaReadResult } from './media-read.js';
import type { MediaSource } from './media-source.js';

/** Reads a link with the campaign's fetcher (its address checks, timeout and redirects), a file from the local disk. */
export class MediaSourceReader implements MediaReader {
  readonly #fetcher: Pick<MediaFetcher, 'fetch'>;

  constructor(fetcher: Pick<MediaFetcher, 'fetch'>) {
    this.#fetcher = fetcher;
  }

  read(source: MediaSource, maxBytes: number): Promise<MediaReadResult> {
    return source.kind === 'url' ? this.#fetcher.fetch(source.url, maxBytes) : readLocalMediaFile(source.path, maxBytes);
  }
}
