import { PerformanceObserver, constants as perfConstants, type PerformanceEntry } from 'node:perf_hooks';
import { messageBody } from '../src/cloud-api/message-body.js';
import { DEFAULT_PAIR_LIMIT, loadTemplatesFile } from '../src/sandbox/index.js';
import { SandboxRuntime } from '../src/sandbox/sandbox-runtime.js';
import { StringSetDuplicates } from './soak-probe-strings.js';
import { PHONE_NUMBER_ID, TEMPLATE, TEMPLATES_FILE } from './support/product.js';

/**
 * The sandbox alone, without HTTP, Redis or a worker: `sends` accepted template sends shaped as
 * the soak's (distinct recipients, `biz_opaque_callback_data` "campaign/row"), on a clock that
 * moves at the soak's pace, with the soak's settings (no throughput cap, Meta's pair limit,
 * the newest 100,000 messages kept). Per tenth of the sends: CPU time per send, and the time
 * V8's garbage collector paused the thread, by kind. A cost that grows from the first tenth
 * to the last is one the soak's receiver pays more for the more it has accepted.
 *
 * `prefill`: the duplicate accounting first records that many other sends (the state of a
 * soak's receiver after as many), so a short run measures the cost at that size.
 * `accounting`: 'digests' (the sandbox's own) or 'strings' (the Set of strings it replaced).
 */
export interface SandboxProbeOptions {
  sends: number;
  prefill: number;
  accounting: 'digests' | 'strings';
}

interface DuplicateRecorder {
  record(phoneNumberId: string, waId: string, type: string, body: unknown): boolean;
}

export interface SandboxTenth {
  tenth: number;
  microsPerSend: number;
  /** Wall time of the tenth: GC pauses are wall time too (on a loaded machine, more than the CPU they use). */
  wallSeconds: number;
  /** Milliseconds of GC pauses in this tenth, and how many: mark-compact (major) and scavenges (minor). */
  majorGcMs: number;
  majorGcs: number;
  minorGcMs: number;
  heapUsedMb: number;
}

/** The soak's pace (msg/s): the clock the sandbox sees moves 1/PACE s per send. */
const PACE = 5000;

export async function probeSandbox(options: SandboxProbeOptions, log: (line: string) => void): Promise<SandboxTenth[]> {
  const { sends } = options;
  let simulated = Date.now();
  const runtime = new SandboxRuntime({
    templates: await loadTemplatesFile(TEMPLATES_FILE),
    accessToken: 'probe',
    phoneNumberIds: [PHONE_NUMBER_ID],
    messagesPerSecond: 0,
    pairLimit: DEFAULT_PAIR_LIMIT,
    retainAccepted: 100_000,
    clock: () => simulated,
    onListenerError: () => undefined,
  });
  const internals = runtime as unknown as { duplicates: DuplicateRecorder };
  if (options.accounting === 'strings') internals.duplicates = new StringSetDuplicates();
  prefill(internals.duplicates, options.prefill, log);
  const gc = { majorMs: 0, majors: 0, minorMs: 0 };
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) countGc(entry, gc);
  });
  observer.observe({ entryTypes: ['gc'] });
  const tenths: SandboxTenth[] = [];
  const perTenth = Math.floor(sends / 10);
  const campaign = 'c0ffee00';
  try {
    for (let tenth = 0; tenth < 10; tenth++) {
      const before = { ...gc };
      const cpuStart = process.cpuUsage();
      const wallStart = performance.now();
      for (let i = tenth * perTenth; i < (tenth + 1) * perTenth; i++) {
        const body = messageBody({
          kind: 'template',
          to: `+49151${String(10_000_000 + i)}`,
          callbackData: `${campaign}/${i}`,
          name: TEMPLATE.name,
          language: TEMPLATE.language,
          body: [{ text: 'Ana' }, { text: `A-${100_000 + i}` }],
        });
        // As the HTTP route hands it over: a freshly parsed body.
        const reply = runtime.send(PHONE_NUMBER_ID, JSON.parse(JSON.stringify(body)) as unknown);
        if (reply.status !== 200) throw new Error(`send ${i} refused: ${JSON.stringify(reply.body)}`);
        simulated += 1000 / PACE;
      }
      // Let the observer's callback run, so this tenth's pauses are counted in it.
      await new Promise((resolve) => setTimeout(resolve, 50));
      const cpu = process.cpuUsage(cpuStart);
      const row = {
        tenth: tenth + 1,
        microsPerSend: (cpu.user + cpu.system) / perTenth,
        wallSeconds: (performance.now() - wallStart) / 1000,
        majorGcMs: gc.majorMs - before.majorMs,
        majorGcs: gc.majors - before.majors,
        minorGcMs: gc.minorMs - before.minorMs,
        heapUsedMb: process.memoryUsage().heapUsed / 1e6,
      };
      tenths.push(row);
      log(
        `  sandbox tenth ${row.tenth}: ${row.microsPerSend.toFixed(1)} µs CPU/send, ${row.wallSeconds.toFixed(1)} s wall, ` +
          `major GC ${row.majorGcMs.toFixed(0)} ms ` +
          `(${row.majorGcs}), minor GC ${row.minorGcMs.toFixed(0)} ms, heap ${row.heapUsedMb.toFixed(0)} MB`,
      );
    }
    const stats = runtime.stats();
    if (stats.accepted !== perTenth * 10 || stats.duplicates !== 0) throw new Error(`unexpected stats ${JSON.stringify(stats)}`);
  } finally {
    observer.disconnect();
  }
  return tenths;
}

function prefill(duplicates: DuplicateRecorder, count: number, log: (line: string) => void): void {
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    // Recipients and rows the measured sends never use: none of them is a duplicate.
    duplicates.record(PHONE_NUMBER_ID, String(4_915_200_000_000 + i), 'template', { biz_opaque_callback_data: `prefill/${i}` });
  }
  if (count > 0)
    log(`  sandbox: duplicate accounting prefilled with ${count} sends in ${((performance.now() - started) / 1000).toFixed(0)} s`);
}

function countGc(entry: PerformanceEntry, gc: { majorMs: number; majors: number; minorMs: number }): void {
  const kind = (entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind;
  if (kind === perfConstants.NODE_PERFORMANCE_GC_MAJOR) {
    gc.majorMs += entry.duration;
    gc.majors += 1;
  } else {
    gc.minorMs += entry.duration;
  }
}
