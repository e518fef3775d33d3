import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
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
  const ready = new Promise<{ pid: number; port: number }>((resolve, reject) => {
    shell.stdout.on('data', (d: Buffer) => {
      output += d.toString();
      const pid = /pid (\d+)/.exec(output);
      const port = /listening on http:\/\/[^:]+:(\d+)/.exec(output);
      if (pid !== null && port !== null) resolve({ pid: Number(pid[1]), port: Number(port[1]) });
    });
    shell.on('error', reject);
  });
  return { shell, ...(await ready) };
}

/** The parent PID of `pid` (the fourth field of /proc/PID/stat, after the command's parenthesis). */
function parentOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
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
    const { shell, pid, port } = await startUnderShell({ npm_command: '' });
    shell.kill('SIGKILL');
    try {
      // Orphaned, it is adopted by another process; nothing watches its parent (the unit test
      // of followNpxParent), so it goes on serving.
      await waitFor(() => parentOf(pid) !== shell.pid, { what: `process ${pid} adopted after its shell died`, timeoutMs: 10_000 });
      const answer = await fetch(`http://127.0.0.1:${port}/`);
      expect(answer.status).toBeGreaterThanOrEqual(200);
      expect(alive(pid)).toBe(true);
    } finally {
      process.kill(pid, 'SIGTERM');
      await gone(pid, 10_000);
    }
  });
});
