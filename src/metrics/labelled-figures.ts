import { Counter, Gauge, type Registry } from 'prom-client';

/** One labelled thing's figures (a hook, a relay target), as read at a scrape. */
export interface LabelledFigures<F> {
  label: string;
  figures: F;
}

/**
 * Series whose values are read from Redis at each scrape, one per labelled thing (every
 * replica's totals, so any `serve` answers the same): their collect callbacks share one read
 * per scrape, and a thing gone from the read has its series gone too. Counters are set from
 * the stored totals (they only grow); a gauge whose value is undefined is left out.
 */
export function labelledFigureSeries<F>(registry: Registry, labelName: string, read: () => Promise<readonly LabelledFigures<F>[]>) {
  let reading: Promise<readonly LabelledFigures<F>[]> | undefined;
  const figures = () => (reading ??= read().finally(() => (reading = undefined)));
  const registers = [registry];
  const labelNames = [labelName];
  return {
    counter: (name: string, help: string, value: (f: F) => number): void => {
      new Counter({
        name,
        help,
        labelNames,
        registers,
        async collect() {
          const all = await figures();
          this.reset();
          for (const { label, figures: f } of all) this.inc({ [labelName]: label }, value(f));
        },
      });
    },
    gauge: (name: string, help: string, value: (f: F) => number | undefined): void => {
      new Gauge({
        name,
        help,
        labelNames,
        registers,
        async collect() {
          const all = await figures();
          this.reset();
          for (const { label, figures: f } of all) {
            const v = value(f);
            if (v !== undefined) this.set({ [labelName]: label }, v);
          }
        },
      });
    },
  };
}
