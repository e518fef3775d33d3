/**
 * `npx campaign worker &` runs our process under `npm exec` and a shell. Killing the PID the
 * shell printed (npm's) does not reach us: npm exits and we are left running, orphaned, with
 * nobody holding our PID. So when npm started us (it sets npm_command=exec for npx) and our
 * parent goes away, we stop as if sent SIGTERM: a worker shuts down gracefully, a send pauses.
 * Not for other launches: a worker started with `nohup node bin/campaign.js worker &` must
 * outlive its shell, so nothing watches its parent.
 *
 * Returns how to stop watching, or undefined when nothing watches.
 */
export function followNpxParent(env: NodeJS.ProcessEnv = process.env): (() => void) | undefined {
  if (env.npm_command !== 'exec') return undefined;
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    process.kill(process.pid, 'SIGTERM');
  }, 1000);
  timer.unref();
  return () => clearInterval(timer);
}
