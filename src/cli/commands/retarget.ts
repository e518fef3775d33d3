import type { Command } from 'commander';
import { messageFlagsSchema, type CampaignFlags, type MessageFlags } from '../../campaigns/spec/campaign-flags.js';
import { CAMPAIGN_FLAG_HELP } from '../../campaigns/spec/campaign-flag-help.js';
import { declareFlag } from '../campaign-flag-options.js';
import { withContext } from '../with-context.js';

interface RetargetFlags extends MessageFlags {
  status: string;
  after?: string;
  templates?: string;
  json?: boolean;
}

export function register(program: Command): void {
  const retarget = program
    .command('retarget')
    .description(
      'create a new campaign from the chosen rows of a finished one (same number, columns and values), ' +
        'e.g. its failed rows with another template; it is linked to its source and the duplicate window applies',
    )
    .argument('<id>', 'the finished (completed or cancelled) campaign')
    .requiredOption(
      '--status <rows>',
      'which rows: failed; delivered-not-read (delivered, no read); not-replied (sent, delivered or read, and no reply recorded); ' +
        'clicked (its tracked link was clicked); not-clicked (sent, delivered or read, and no click recorded)',
    )
    .option(
      '--after <duration>',
      'only rows delivered (delivered-not-read), sent (not-replied, not-clicked), clicked (clicked) or failed (failed) at least ' +
        'this long ago, e.g. 24h, 90m, 2d',
    );
  // The new campaign's message: the same flags as `send` (the template may differ from the source campaign's).
  for (const field of Object.keys(messageFlagsSchema.shape) as (keyof CampaignFlags)[])
    declareFlag(retarget, field, CAMPAIGN_FLAG_HELP[field]);
  retarget
    .option('--templates <file>', 'approved templates from this Meta list JSON instead of the registry source')
    .option('--json', 'print the new campaign as `send --json` does')
    .action(retargetCampaign);
}

/** `campaign retarget ID --status …`: prints the new campaign's plan as `send` does. */
async function retargetCampaign(id: string, o: RetargetFlags): Promise<void> {
  const { retargetCampaign: runRetarget } = await import('../../app/retarget-campaign.js');
  const { CLI_FIELD_NAMES } = await import('../../campaigns/spec/field-names.js');
  const { recordCliAction } = await import('../run/cli-history.js');
  const { parseRetargetStatus } = await import('../../campaigns/retarget/retarget-rule.js');
  const { parseDuration } = await import('../../campaigns/spec/time-options.js');
  const [{ summaryJson }, { summaryText }] = await Promise.all([import('../../app/views/send-summary-view.js'), import('../format.js')]);
  const { displayZoneOf } = await import('../../campaigns/spec/display-zone.js');
  // The rest of the flags are the new campaign's message, as CampaignFlags names them.
  const { status, after, templates, json, ...message } = o;
  // Read before anything is opened: a typo in either is named at once.
  const rule = { status: parseRetargetStatus(status), afterMs: after === undefined ? undefined : parseDuration('--after', after) };
  const result = await withContext((context) =>
    runRetarget(context, {
      campaignId: id,
      rule,
      message,
      names: CLI_FIELD_NAMES,
      templatesFile: templates === undefined ? undefined : { path: templates, name: '--templates' },
      record: (campaignId, action, detail) => recordCliAction(context, campaignId, action, detail),
    }),
  );
  const zone = displayZoneOf({ displayTimezone: undefined, typed: [] }, '--display-timezone');
  console.log(
    json === true
      ? JSON.stringify(summaryJson(result, result.sendRate))
      : summaryText(result, result.sendRate, { zone, startsNow: result.estimate.startsAt <= Date.now() }),
  );
}
