import { readFile, stat } from 'node:fs/promises';
import { AppError } from '../errors/app-error.js';
import { templateListSchema, type MessageTemplate } from './template-schema.js';

/**
 * Reads a templates file (for the sandbox and for checking a campaign's mapping): Meta's list shape `{data:[…], paging?}` as saved
 * from `GET /{waba-id}/message_templates`, or a bare array of templates. Every problem is
 * one AppError naming the file, so a CLI user sees which file and which field to fix.
 */
/** Far above any real template list (Meta's hold a few hundred templates); a bigger file is not one. */
const MAX_TEMPLATES_FILE_BYTES = 50 * 1024 * 1024;

export async function loadTemplatesFile(path: string): Promise<MessageTemplate[]> {
  let text: string;
  try {
    // A named pipe or a device (/dev/zero) would be read forever: refuse it before opening.
    const info = await stat(path);
    if (!info.isFile()) {
      throw new AppError(
        'TEMPLATES_FILE_INVALID',
        `Templates file ${path} is not a regular file (a directory, a pipe or a device); give the path of the saved JSON list`,
      );
    }
    if (info.size > MAX_TEMPLATES_FILE_BYTES) {
      throw new AppError(
        'TEMPLATES_FILE_INVALID',
        `Templates file ${path} is ${info.size} bytes, too large for a message_templates list; check the path`,
      );
    }
    text = await readFile(path, 'utf8');
  } catch (cause) {
    if (cause instanceof AppError) throw cause;
    throw new AppError('TEMPLATES_FILE_INVALID', `Cannot read templates file ${path}: ${messageOf(cause)}`, {
      cause,
    });
  }

  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (cause) {
    throw new AppError('TEMPLATES_FILE_INVALID', `Templates file ${path} is not valid JSON: ${messageOf(cause)}`, {
      cause,
    });
  }

  const list: unknown = Array.isArray(json) ? { data: json } : json;
  const parsed = templateListSchema.safeParse(list);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? issue.path.join('.') : '(top level)';
    throw new AppError(
      'TEMPLATES_FILE_INVALID',
      `Templates file ${path} is not a message_templates list: ${where}: ${issue?.message ?? 'invalid'}`,
    );
  }

  // Keep each template as written (the schema strips fields it does not model, such as
  // `example`), adding only the defaults the schema fills in. The schema accepted every
  // object, so each is a MessageTemplate with possibly more fields.
  const raw = (list as { data: MessageTemplate[] }).data;
  return parsed.data.data.map((template, index) => ({
    ...raw[index],
    ...template,
    components: raw[index]?.components ?? template.components,
  }));
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
