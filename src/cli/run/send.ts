import type { AppContext } from '../../app/app-context.js';
import { createCampaignDeps } from '../../app/create-campaign-deps.js';
import { sendCampaign } from '../../app/send-campaign.js';
import type { CreateNotices } from '../../campaigns/create-campaign.js';
import type { SendOutcome } from '../../campaigns/ingest/producer.js';
import type { CampaignFlags } from '../../campaigns/spec/campaign-flags.js';
import { CLI_FIELD_NAMES } from '../../campaigns/spec/field-names.js';
import { parseMaxCost } from '../../campaigns/spec/max-cost.js';
import { recordCliAction } from './cli-history.js';

/** `campaign send FILE`: its campaign's flags (CampaignFlags, as the API's JSON has them), the file, and its own `--templates`. */
export interface SendOptions extends CampaignFlags, CreateNotices {
  /** The CSV of recipients; undefined with `audience`. */
  file: string | undefined;
  /** `--templates FILE`: approved templates from this Meta list instead of the registry's source. */
  templatesFile?: string | undefined;
}

/**
 * `campaign send`: sendCampaign with the command line's names for the fields (a refusal
 * names `--phone-number-id`), its `--templates`, and the history's entry as this OS user.
 */
export async function runSend(context: AppContext, options: SendOptions): Promise<SendOutcome> {
  const { file, templatesFile, signal, onStart, onProgress, ...flags } = options;
  return sendCampaign(
    createCampaignDeps(context),
    {
      flags,
      names: CLI_FIELD_NAMES,
      file,
      templatesFile: templatesFile === undefined ? undefined : { path: templatesFile, name: '--templates' },
      record: (campaignId, action, detail) => recordCliAction(context, campaignId, action, detail),
    },
    { signal, onStart, onProgress },
  );
}

/** Commander's options of `campaign send`: the campaign's flags, `--max-cost` as typed, and the command line's own flags. */
export type SendCommandOptions = Omit<CampaignFlags, 'maxCost'> & {
  maxCost?: string | undefined;
  templates?: string | undefined;
  json?: boolean | undefined;
};

/**
 * The campaign's flags of commander's options, which are already named as CampaignFlags
 * (list flags read into arrays, `--param` into an object): the command line's own flags left
 * out, and the one value typed in another form than the API's JSON, the amount, read.
 */
export function campaignFlagsOf(options: SendCommandOptions): CampaignFlags {
  const { maxCost, ...flags } = options;
  delete flags.templates;
  delete flags.json;
  return maxCost === undefined ? flags : { ...flags, maxCost: parseMaxCost(CLI_FIELD_NAMES.maxCost, maxCost) };
}
