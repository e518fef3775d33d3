import { startChild, stopChild, waitForLine, type Child } from './children.js';
import { CAMPAIGN_BIN, ROOT } from './product.js';

/**
 * A `campaign serve` child on a free port, once it listens: the child (for the caller to stop)
 * and its base URL. One that never says where it listens is stopped here.
 */
export async function startServeChild(env: NodeJS.ProcessEnv): Promise<{ child: Child; url: string }> {
  const child = startChild('campaign serve', process.execPath, [CAMPAIGN_BIN, 'serve', '--port', '0'], env, ROOT);
  try {
    const { line } = await waitForLine(child, (l) => /Webhook service listening on http:\/\//.test(l), 60_000);
    const url = /listening on (http:\/\/[^\s:]+:\d+)/.exec(line)?.[1];
    if (url === undefined) throw new Error(`cannot read the service URL from: ${line}`);
    return { child, url };
  } catch (error) {
    await stopChild(child);
    throw error;
  }
}
