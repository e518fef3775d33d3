import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import { stringify } from 'csv-stringify';
import type { CampaignDefinition } from '../campaigns/campaign.js';
import { campaignNotFound } from '../campaigns/campaign-not-found.js';
import type { SendOutcome } from '../campaigns/ingest/producer.js';
import { retargetCells, retargetHeader } from '../campaigns/retarget/retarget-columns.js';
import { chosenByRule, type RetargetRule } from '../campaigns/retarget/retarget-rule.js';
import type { MessageFlags } from '../campaigns/spec/campaign-flags.js';
import type { FieldNames } from '../campaigns/spec/field-names.js';
import { AppError } from '../errors/app-error.js';
import { createCampaignDeps, type CampaignContext } from './create-campaign-deps.js';
import { sendCampaign } from './send-campaign.js';
import { withDestinations } from '../clicks/retarget-destinations.js';
import { RedisClickLinks } from '../redis/clicks/redis-click-links.js';

/** `campaign retarget ID` and POST /campaigns/{id}/retarget: the rule, and the new campaign's message as `send` takes it. */
export interface RetargetRequest {
  campaignId: string;
  rule: RetargetRule;
  /** What the new campaign sends and which of the source's columns fill it, as CampaignFlags names them. */
  message: MessageFlags;
  /** How a refusal names the message's fields: the CLI's flags, the API's JSON fields. */
  names: FieldNames;
  /** The CLI's `--templates FILE` and the flag's name. */
  templatesFile?: { path: string; name: string } | undefined;
  /** Adds an entry to a campaign's history, as the caller is known (the CLI's user, the API's token). */
  record?: ((campaignId: string, action: 'retarget', detail: string) => Promise<void>) | undefined;
}

/**
 * A new campaign from the chosen rows of a finished one: the rows are written to a file with
 * the source's columns (as the ledger keeps them) and that file goes through sendCampaign, as
 * `campaign send` does, so every check, the opt-outs, the duplicate window and the plan apply
 * unchanged. Nothing is created when no row is chosen.
 */
export async function retargetCampaign(context: CampaignContext, request: RetargetRequest): Promise<SendOutcome> {
  const { campaignId, rule } = request;
  const source = await finishedSource(context, campaignId);
  const dir = await mkdtemp(join(tmpdir(), 'campaign-retarget-'));
  try {
    const file = join(dir, `${campaignId}-${rule.status}.csv`);
    const chosen = await writeChosenRows(context, source, rule, file);
    if (chosen === 0) {
      throw new AppError(
        'RETARGET_NO_ROWS',
        `No row of campaign ${campaignId} is ${rule.status}${rule.afterMs === undefined ? '' : ' long enough'}; no campaign was created`,
      );
    }
    // The source's number, phone column and the file's own delimiter: only the message is the caller's.
    const flags = {
      ...request.message,
      name: retargetName(source.name ?? campaignId, rule.status),
      phoneColumn: source.source.phoneColumn,
      phoneNumberId: source.phoneNumberId,
      delimiter: ',',
    };
    const outcome = await sendCampaign(createCampaignDeps(context), {
      flags,
      names: request.names,
      file,
      templatesFile: request.templatesFile,
      sourceCampaign: campaignId,
    });
    const rows = `${rule.status} rows`;
    await request.record?.(outcome.id, 'retarget', `from campaign ${campaignId} (its ${rows}): ${outcome.queued} queued`);
    await request.record?.(campaignId, 'retarget', `its ${rows} taken into campaign ${outcome.id}`);
    return outcome;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The source's definition, refused unless it exists, is finished (completed or cancelled) and still has its rows. */
async function finishedSource(context: CampaignContext, id: string): Promise<CampaignDefinition> {
  const status = await context.ledger.status(id);
  const definition = await context.ledger.getCampaign(id);
  if (status === undefined || definition === undefined) {
    throw campaignNotFound(id);
  }
  if (status.purgedAt !== undefined) {
    throw new AppError('CAMPAIGN_PURGED', `Campaign ${id}'s rows were purged: there is nothing to retarget`);
  }
  if (status.state !== 'completed' && status.state !== 'cancelled') {
    throw new AppError(
      'CAMPAIGN_NOT_FINISHED',
      `Campaign ${id} is ${status.state}: retarget it once it is completed (or cancelled), when its rows' outcomes are final`,
    );
  }
  return definition;
}

/** Writes the rows the rule chooses to `file` (the source's columns), and counts them. */
async function writeChosenRows(context: CampaignContext, source: CampaignDefinition, rule: RetargetRule, file: string): Promise<number> {
  const header = retargetHeader(source);
  const csv = stringify({ header: true, columns: header });
  const out = createWriteStream(file);
  csv.pipe(out);
  const now = await context.ledger.now();
  // A campaign that tracked clicks keeps tokens in its rows: the file gets each row's destination instead.
  const links = source.clicks === undefined ? undefined : new RedisClickLinks(context.redis, context.config.queuePrefix);
  let chosen = 0;
  try {
    for await (const page of context.ledger.rowMessages(source.id)) {
      const picked = page.filter((row) => chosenByRule(rule, row, now));
      for (const row of links === undefined ? picked : await withDestinations(links, source, picked)) {
        chosen++;
        if (!csv.write(retargetCells(source, header, row))) await new Promise((resolve) => csv.once('drain', resolve));
      }
    }
  } finally {
    csv.end();
    await finished(out);
  }
  return chosen;
}

/** The new campaign's name: its source's (or ID) and the rows it takes, within the 100 characters a name may have. */
function retargetName(source: string, status: string): string {
  const suffix = ` (${status})`;
  return (
    Array.from(source)
      .slice(0, 100 - suffix.length)
      .join('') + suffix
  );
}
