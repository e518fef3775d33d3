import { MultiBar, Presets } from 'cli-progress';
import { watchLine, watchParts } from '../format.js';
import { statusJson, type StatusView } from '../../app/views/status-view.js';
import { answeredRows, rowsLeft, watchJson, type WatchView } from '../../app/views/watch-view.js';
import { windowStatus } from '../../campaigns/report/window-status.js';
import { campaignEtaSeconds } from '../../campaigns/report/campaign-eta.js';
import { sendRateOf } from '../../config/config.js';
import type { AppContext } from '../../app/app-context.js';
import { loadRateCard } from '../../pricing/rate-card.js';
import { statusCost } from '../../app/status-cost.js';
import { printableJson } from '../../text/operator-text.js';

/**
 * `campaign status ID --watch`: reads the campaign once a second until it is completed or
 * cancelled. On a terminal, a progress bar with the rate, the ETA and the counts, redrawn in
 * place; `--json`: the `status --json` object plus `rate` and `etaSeconds`, one per line;
 * elsewhere (a pipe, a log file): one line per second. It only reads the ledger, so any
 * number of watches can run beside the workers; Ctrl-C leaves it (exit 130).
 */

export type WatchOutcome = 'ended' | 'interrupted';

export interface WatchOptions {
  json: boolean;
  /** The error `campaign status` gives for an unknown campaign. */
  notFound: () => Error;
  out?: NodeJS.WriteStream;
  everyMs?: number;
}

/** How far back the rate looks: long enough to smooth the workers' per-second flushes, short enough to follow a pause. */
const RATE_WINDOW_MS = 5000;

/**
 * Rows answered per second over the last few seconds, from successive reads of the counters:
 * the change since the oldest read still inside the window. Null until two reads are at least
 * half a second apart.
 */
export class AnsweredRate {
  readonly #windowMs: number;
  #samples: { at: number; answered: number }[] = [];

  constructor(windowMs = RATE_WINDOW_MS) {
    this.#windowMs = windowMs;
  }

  add(at: number, answered: number): number | null {
    this.#samples.push({ at, answered });
    // Keep the newest read that is at least a window old: the rate then spans the whole window.
    while (this.#samples.length > 2 && (this.#samples[1]?.at ?? at) <= at - this.#windowMs) this.#samples.shift();
    const first = this.#samples[0];
    if (first === undefined || at - first.at < 500) return null;
    return Math.max(0, (answered - first.answered) / ((at - first.at) / 1000));
  }
}

interface Display {
  show(view: WatchView, at: number): void;
  close(): void;
}

export async function watchStatus(context: AppContext, id: string, options: WatchOptions): Promise<WatchOutcome> {
  const { ledger } = context;
  const out = options.out ?? process.stdout;
  const everyMs = options.everyMs ?? 1000;
  const stop = new AbortController();
  let signals = 0;
  const onSignal = () => {
    // A second Ctrl-C while a read hangs (Redis away) leaves at once.
    if (++signals > 1) process.exit(130);
    stop.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const aborted = new Promise<undefined>((resolve) => stop.signal.addEventListener('abort', () => resolve(undefined), { once: true }));

  let display: Display | undefined;
  try {
    const first = await ledger.status(id);
    if (first === undefined) throw options.notFound();
    // What it sends, its window and its times never change: read them once.
    const definition = await ledger.getCampaign(id);
    const configuredRate = definition === undefined ? 0 : sendRateOf(context.config.send, definition.phoneNumberId);
    const card = loadRateCard(context.config.rateCardFile);
    const read = async (): Promise<{ view: StatusView; eta: (measuredRate: number | null) => number | undefined }> => {
      const status = await ledger.status(id);
      if (status === undefined) throw options.notFound();
      const window = definition?.window;
      const now = Date.now();
      const backlogs = window === undefined ? [] : await ledger.laneBacklogs(id);
      const view: StatusView = {
        ...statusJson(status, window === undefined ? undefined : windowStatus(window, backlogs, now), definition),
        cost: await statusCost(ledger, card, status),
      };
      // The plan `send` printed, from what is left now (src/campaigns/report/campaign-eta.ts).
      const eta = (measuredRate: number | null) =>
        campaignEtaSeconds({
          now,
          state: status.state,
          startsAt: status.startsAt,
          expiresAt: status.expiresAt,
          window,
          rowsLeft: rowsLeft(view),
          backlogs,
          measuredRate: measuredRate ?? undefined,
          configuredRate,
        });
      return { view, eta };
    };
    display = options.json ? jsonDisplay(out) : out.isTTY ? barDisplay(out) : lineDisplay(out);
    const rates = new AnsweredRate();
    let next = Date.now();
    for (;;) {
      const reading = await Promise.race([read(), aborted]);
      if (reading === undefined) return 'interrupted';
      const { view } = reading;
      const at = Date.now();
      const rate = rates.add(at, answeredRows(view));
      display.show(watchJson(view, rate, reading.eta(rate)), at);
      if (view.state === 'completed' || view.state === 'cancelled') return 'ended';
      next += everyMs;
      if (!(await pause(Math.max(0, next - Date.now()), stop.signal))) return 'interrupted';
    }
  } finally {
    display?.close();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

/** Waits `ms`; false when the signal aborts first. */
function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

function jsonDisplay(out: NodeJS.WriteStream): Display {
  return {
    show: (view) => out.write(`${printableJson(JSON.stringify(view))}\n`),
    close: () => undefined,
  };
}

function lineDisplay(out: NodeJS.WriteStream): Display {
  return {
    show: (view, at) => out.write(`${watchLine(view, at)}\n`),
    close: () => undefined,
  };
}

/**
 * Four lines redrawn in place: the state (and why it is paused, or waits), the bar with the rate and the ETA, the rows answered, the rows
 * to go.
 */
function barDisplay(out: NodeJS.WriteStream): Display {
  const bars = new MultiBar(
    { stream: out, hideCursor: true, clearOnComplete: false, forceRedraw: true, barsize: 30 },
    Presets.shades_classic,
  );
  const line = () => bars.create(1, 0, { text: '' }, { format: '{text}' });
  const head = line();
  const progress = bars.create(1, 0, { progress: '' }, { format: '  |{bar}| {progress}' });
  const answered = line();
  const pending = line();
  return {
    show(view) {
      const parts = watchParts(view);
      const done = Math.max(0, view.total - rowsLeft(view));
      head.update(0, { text: `Campaign ${view.id}: ${view.state}${parts.note === '' ? '' : ` (${parts.note})`}` });
      progress.setTotal(Math.max(1, view.total));
      progress.update(view.total === 0 ? 1 : done, { progress: parts.progress });
      answered.update(0, { text: `  ${parts.answered}` });
      pending.update(0, { text: `  ${parts.pending}` });
    },
    close: () => bars.stop(),
  };
}
