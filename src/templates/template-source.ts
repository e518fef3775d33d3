import { resolve } from 'node:path';
import type { MessageTemplate } from './template-schema.js';
import { loadTemplatesFile } from './templates-file.js';

/**
 * Where approved templates come from: the Cloud API (`CloudApiTemplateSource` in
 * src/cloud-api/templates-client.ts) or a local copy of its list (`FileTemplateSource`).
 * The registry depends only on this interface.
 */
export interface TemplateSource {
  /** A short, secret-free description for logs and CLI output, e.g. `file /srv/templates.json`. */
  describe(): string;
  /** Every template the source holds, all statuses, each checked against the schema. */
  fetchAll(): Promise<MessageTemplate[]>;
  /** Releases connections the source owns (the API source's HTTP pool). */
  close?(): Promise<void>;
}

/** A saved `message_templates` list (or bare array) on disk, as `TEMPLATES_FILE` / `--templates` name it. */
export class FileTemplateSource implements TemplateSource {
  readonly path: string;

  constructor(path: string) {
    this.path = resolve(path);
  }

  describe(): string {
    return `file ${this.path}`;
  }

  fetchAll(): Promise<MessageTemplate[]> {
    return loadTemplatesFile(this.path);
  }
}
