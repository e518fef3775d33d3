import { describe, expect, it } from 'vitest';
import { findOnPath } from '../../src/files/find-on-path.js';

describe('findOnPath', () => {
  const executables = new Set(['/opt/b/redis-server', '/usr/bin/redis-server']);
  const isExecutable = (path: string) => executables.has(path);

  it('returns the first directory of the PATH that holds the executable, as a shell would', () => {
    expect(findOnPath('redis-server', '/opt/a:/opt/b:/usr/bin', isExecutable)).toBe('/opt/b/redis-server');
    expect(findOnPath('redis-server', '/usr/bin:/opt/b', isExecutable)).toBe('/usr/bin/redis-server');
  });

  it('skips empty entries and says undefined when no directory holds it', () => {
    expect(findOnPath('redis-server', '::/opt/a', isExecutable)).toBeUndefined();
    expect(findOnPath('redis-server', '', isExecutable)).toBeUndefined();
  });
});
