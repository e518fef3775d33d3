const BOM = 0xfeff;

/**
 * Bytes of the file → text, chunk by chunk. A character whose bytes are split across two
 * chunks is decoded whole (the decoder keeps the first part). Bytes that are not UTF-8 become
 * U+FFFD, which the record parser reports as a malformed record rather than a garbled value.
 *
 * Every BOM at the start of the file is dropped, not only the first: files that went through
 * two tools that each add one (EF BB BF EF BB BF) are common, and the second BOM would
 * otherwise stick to the first header name.
 */
export class Utf8Text {
  readonly #decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });
  #atStart = true;

  decode(bytes: Uint8Array): string {
    return this.#dropBoms(this.#decoder.decode(bytes, { stream: true }));
  }

  /** What the decoder still holds: U+FFFD for a character cut by the end of the file. */
  end(): string {
    return this.#dropBoms(this.#decoder.decode());
  }

  #dropBoms(text: string): string {
    if (!this.#atStart || text.length === 0) return text;
    let start = 0;
    while (start < text.length && text.charCodeAt(start) === BOM) start++;
    if (start < text.length) this.#atStart = false;
    return start === 0 ? text : text.slice(start);
  }
}
