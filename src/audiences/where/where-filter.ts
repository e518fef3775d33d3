/** A parsed `--where` expression over an audience's attributes (grammar: docs/audiences.md). */
export interface WhereFilter {
  /** The expression as written. */
  readonly text: string;
  /** The attribute names it reads, each once: checked against the audience's before anything is sent. */
  readonly attributes: readonly string[];
  /** Whether a contact with these attributes (name → cell; a missing one reads as '') is in the segment. */
  matches(attributes: Readonly<Record<string, string>>): boolean;
}
