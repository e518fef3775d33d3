import type { AppContext } from '../app/app-context.js';
import type { RequiredSetting } from '../config/config.js';

/** Runs a command with a context, and always closes it. The context's code loads only when a command runs. */
export async function withContext<T>(fn: (context: AppContext) => Promise<T>, required: readonly RequiredSetting[] = []): Promise<T> {
  const { openContext } = await import('../app/app-context.js');
  const context = await openContext(required);
  try {
    return await fn(context);
  } finally {
    await context.close();
  }
}
