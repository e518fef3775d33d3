import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../support/waiting.js';

const CLI = fileURLToPath(new URL('../../bin/campaign.js', import.meta.url));

/**
 * `npx campaign worker &` then `kill <that PID>`: npm dies, and our process must not be left
 * running, orphaned. A shell stands in for npm here (npm sets npm_command=exec for npx); the
 * test learns the real process's PID from the shell and checks it, by that PID only.
 */
async function startUnderShell(env: Record<string, string>) {
  const shell = spawn('sh', ['-c', `"${process.execPath}" "${CLI}" sandbox --port 0 & echo "pid $!"; wait`], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const ready = new Promise<number>((resolve, reject) => {
    shell.stdout.on('data', (d: Buffer) => {
      output += d.toString();
      const pid = /pid (\d+)/.exec(output);
      if (pid !== null && output.includes('listening on')) resolve(Number(pid[1]));
    });
    shell.on('error', reject);
  });
  const pid = await ready;
  return { shell, pid };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Whether the process is gone within `withinMs`. */
async function gone(pid: number, withinMs: number): Promise<boolean> {
  return waitFor(() => !alive(pid), { what: `process ${pid} gone`, timeoutMs: withinMs, intervalMs: 100 }).catch(() => !alive(pid));
}

describe('a campaign process started by npx', () => {
  it('stops when its npx parent is killed', async () => {
    const { shell, pid } = await startUnderShell({ npm_command: 'exec' });
    shell.kill('SIGKILL');
    expect(await gone(pid, 15_000)).toBe(true);
  });

  it('started any other way, it outlives its parent (nohup use)', async () => {
    const { shell, pid } = await startUnderShell({ npm_command: '' });
    shell.kill('SIGKILL');
    try {
      // An absence over time, which no event marks: the process looks for its parent once a
      // second (followNpxParent), so it had two looks at least to stop, and did not.
      expect(await gone(pid, 2500)).toBe(false);
    } finally {
      process.kill(pid, 'SIGTERM');
      await gone(pid, 10_000);
    }
  });
});
