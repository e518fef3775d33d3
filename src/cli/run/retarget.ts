import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import { stringify } from 'csv-stringify';
import type { AppContext } from '../../app/app-context.js';
import type { CampaignDefinition } from '../../campaigns/campaign.js';
import { createCampaign } from '../../campaigns/create-campaign.js';
import type { SendOutcome } from '../../campaigns/ingest/producer.js';
import type { ColumnOptions } from '../../campaigns/send-plan.js';
import { retargetCells, retargetHeader } from '../../campaigns/retarget/retarget-columns.js';
import { chosenByRule, type RetargetRule } from '../../campaigns/retarget/retarget-rule.js';
import { CLI_FIELD_NAMES, type FieldNames } from '../../campaigns/spec/field-names.js';
import { parseCampaignSpec } from '../../campaigns/spec/parse-spec.js';
import { AppError } from '../../errors/app-error.js';
import { sendSpecOf } from '../send-spec.js';
import { campaignDeps } from './send.js';
import { campaignNotFound } from '../../campaigns/campaign-not-found.js';

/** `campaign retarget ID`: the rule, and the new campaign's message as `send` takes it. */
export interface RetargetOptions extends ColumnOptions {
  campaignId: string;
  rule: RetargetRule;
  template?: string | undefined;
  language?: string | undefined;
  text?: string | undefined;
  previewUrl?: boolean | undefined;
  /** `--templates FILE`: approved templates from this Meta list instead of the registry's source. */
  templatesFile?: string | undefined;
  /** How the message's fields are named to the caller in a refusal (the CLI's flags by default; the API's JSON names). */
  names?: FieldNames | undefined;
  /** Adds an entry to a campaign's history, as the caller is known (the CLI's user, the API's token). */
  record?: ((campaignId: string, action: 'retarget', detail: string) => Promise<void>) | undefined;
}

/** What retarget works with: a command's context (the API's has no close()). */
type RetargetContext = Omit<AppContext, 'close'>;

/**
 * A new campaign from the chosen rows of a finished one: the rows are written to a file with
 * the source's columns (as the ledger keeps them) and that file goes through createCampaign,
 * as `campaign send` does, so every check, the opt-outs, the duplicate window and the plan
 * apply unchanged. Nothing is created when no row is chosen.
 */
export async function runRetarget(context: RetargetContext, options: RetargetOptions): Promise<SendOutcome> {
  const source = await finishedSource(context, options.campaignId);
  const dir = await mkdtemp(join(tmpdir(), 'campaign-retarget-'));
  try {
    const file = join(dir, `${options.campaignId}-${options.rule.status}.csv`);
    const chosen = await writeChosenRows(context, source, options.rule, file);
    if (chosen === 0) {
      throw new AppError(
        'RETARGET_NO_ROWS',
        `No row of campaign ${options.campaignId} is ${options.rule.status}${options.rule.afterMs === undefined ? '' : ' long enough'}; ` +
          'no campaign was created',
      );
    }
    const names = options.names ?? CLI_FIELD_NAMES;
    const spec = parseCampaignSpec(
      sendSpecOf({
        template: options.template,
        language: options.language,
        text: options.text,
        previewUrl: options.previewUrl,
        params: options.params,
        paramColumns: options.paramColumns,
        headerTextColumn: options.headerTextColumn,
        headerMediaColumn: options.headerMediaColumn,
        buttonUrlColumns: options.buttonUrlColumns,
        phoneColumn: source.source.phoneColumn,
        phoneNumberId: source.phoneNumberId,
        delimiter: ',',
        name: retargetName(source.name ?? options.campaignId, options.rule.status),
      }),
      names,
    );
    const templatesFile =
      options.templatesFile === undefined ? {} : { templatesFile: { path: options.templatesFile, name: '--templates' } };
    const outcome = await createCampaign(campaignDeps(context), {
      spec,
      names,
      file,
      ...templatesFile,
      sourceCampaign: options.campaignId,
    });
    const rows = `${options.rule.status} rows`;
    await options.record?.(outcome.id, 'retarget', `from campaign ${options.campaignId} (its ${rows}): ${outcome.queued} queued`);
    await options.record?.(options.campaignId, 'retarget', `its ${rows} taken into campaign ${outcome.id}`);
    return outcome;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The source's definition, refused unless it exists, is finished (completed or cancelled) and still has its rows. */
async function finishedSource(context: RetargetContext, id: string): Promise<CampaignDefinition> {
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
async function writeChosenRows(context: RetargetContext, source: CampaignDefinition, rule: RetargetRule, file: string): Promise<number> {
  const header = retargetHeader(source);
  const csv = stringify({ header: true, columns: header });
  const out = createWriteStream(file);
  csv.pipe(out);
  const now = await context.ledger.now();
  let chosen = 0;
  try {
    for await (const page of context.ledger.rowMessages(source.id)) {
      for (const row of page) {
        if (!chosenByRule(rule, row, now)) continue;
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
