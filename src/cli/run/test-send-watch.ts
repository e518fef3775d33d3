import type { AppContext } from '../../app/app-context.js';
import type { RowRecord } from '../../campaigns/campaign.js';

/** How long `send --test-to` follows its messages before it leaves them to `campaign status`. */
const WATCH_MS = 120_000;
const POLL_MS = 500;
/** No row sent by then: say what a test send needs (a worker), and keep waiting. */
const NO_WORKER_HINT_MS = 15_000;

/**
 * `send --test-to`: each test message's ID and statuses as they come (sent with its message ID,
 * delivered, read, or failed with Meta's code), until every one is delivered, read or refused,
 * or two minutes have passed.
 */
export async function watchTestSend(
  context: Pick<AppContext, 'ledger'>,
  campaignId: string,
  print: (line: string) => void,
  options: { watchMs?: number; pollMs?: number } = {},
): Promise<RowRecord[]> {
  const started = Date.now();
  const watchMs = options.watchMs ?? WATCH_MS;
  const seen = new Map<number, string>();
  let hinted = false;
  for (;;) {
    const rows = await rowsOf(context, campaignId);
    for (const row of rows) {
      const said = describe(row);
      if (seen.get(row.row) !== said) print(`  ${row.phone}: ${said}`);
      seen.set(row.row, said);
    }
    if (rows.length > 0 && rows.every(isDone)) return rows;
    const waited = Date.now() - started;
    if (!hinted && waited > NO_WORKER_HINT_MS && rows.every((r) => r.status === 'queued')) {
      print('  nothing sent yet: a worker sends it (`campaign worker`, or `campaign serve` with its workers)');
      hinted = true;
    }
    if (waited > watchMs) {
      print(`  still waiting after ${Math.round(watchMs / 1000)} s: \`campaign status ${campaignId}\` shows the rest`);
      return rows;
    }
    await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? POLL_MS));
  }
}

async function rowsOf(context: Pick<AppContext, 'ledger'>, campaignId: string): Promise<RowRecord[]> {
  const all: RowRecord[] = [];
  for await (const page of context.ledger.rows(campaignId)) all.push(...page);
  return all;
}

function describe(row: RowRecord): string {
  const id = row.wamid === undefined ? '' : ` ${row.wamid}`;
  const seen = row.readAt !== undefined ? ', read' : row.deliveredAt !== undefined ? ', delivered' : '';
  const why = row.errorCode === undefined ? '' : ` ${row.errorCode}: ${row.errorDetail ?? ''}`;
  return `${row.status}${id}${seen}${why}`;
}

/** Nothing more will come for it: delivered or read, or never sent. */
function isDone(row: RowRecord): boolean {
  if (row.status === 'sent' || row.status === 'held') return row.deliveredAt !== undefined || row.readAt !== undefined;
  return row.status !== 'queued' && row.status !== 'sending' && row.status !== 'confirming';
}
