import { describe, expect, it } from 'vitest';
import { followNpxParent } from '../../src/cli/npx-parent.js';

describe('followNpxParent', () => {
  it('watches the parent only when npx (npm exec) started the process', () => {
    for (const npm_command of [undefined, '', 'run-script', 'start']) {
      expect(followNpxParent({ npm_command })).toBeUndefined();
    }
    const stop = followNpxParent({ npm_command: 'exec' });
    expect(stop).toBeTypeOf('function');
    stop?.();
  });
});
