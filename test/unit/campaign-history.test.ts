import { describe, expect, it } from 'vitest';
import { describeActor, historyEntryOf } from '../../src/campaigns/history/campaign-history.js';
import { historySection } from '../../src/dashboard/campaign-history-section.js';

describe('campaign history: actors, stored entries, the page section', () => {
  it('names each kind of actor for people', () => {
    expect(describeActor({ kind: 'token', name: 'crm' })).toBe('token crm');
    expect(describeActor({ kind: 'dashboard', name: 'alice' })).toBe('dashboard user alice');
    expect(describeActor({ kind: 'dashboard', name: '' })).toBe('dashboard (no password set)');
    expect(describeActor({ kind: 'cli', name: 'root' })).toBe('CLI (user root)');
    expect(describeActor({ kind: 'cli', name: '' })).toBe('CLI');
  });

  it('reads back a stored entry, and nothing from what is not one', () => {
    const entry = { at: 5, actor: { kind: 'cli', name: 'ops' }, action: 'retry', detail: '3 rows put back in the queue' };
    expect(historyEntryOf(entry)).toStrictEqual(entry);
    expect(historyEntryOf({ ...entry, detail: 7, extra: 'x' })).toStrictEqual({ at: 5, actor: entry.actor, action: 'retry' });
    for (const bad of [
      null,
      'x',
      { ...entry, at: 'soon' },
      { ...entry, action: 'delete' },
      { ...entry, actor: { kind: 'robot', name: 'r' } },
    ])
      expect(historyEntryOf(bad)).toBeUndefined();
  });

  it('renders nothing without a history, a line when empty, and escapes every value', () => {
    expect(historySection(undefined).value).toBe('');
    expect(historySection([]).value).toContain('Nothing recorded');
    const { value } = historySection([
      { at: Date.UTC(2026, 10, 26, 4, 5, 6), actor: { kind: 'dashboard', name: '<b>x' }, action: 'pause', detail: '<script>1</script>' },
    ]);
    expect(value).toContain('<td>2026-11-26 04:05:06 UTC</td>');
    expect(value).toContain('dashboard user &lt;b&gt;x');
    expect(value).toContain('&lt;script&gt;1&lt;/script&gt;');
    expect(value).not.toContain('<script>');
  });
});
