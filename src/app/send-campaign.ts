import { basename } from 'node:path';
import { approvedTemplate, createCampaign, type CreateCampaignDeps, type CreateNotices } from '../campaigns/create-campaign.js';
import type { SendOutcome } from '../campaigns/ingest/producer.js';
import type { RejectsSink } from '../campaigns/ingest/rejects-file.js';
import type { CampaignFlags } from '../campaigns/spec/campaign-flags.js';
import { checkCampaignSpec, type CheckedSpec, type SpecCheckContext } from '../campaigns/spec/check-spec.js';
import type { FieldNames } from '../campaigns/spec/field-names.js';
import { parseCampaignSpec } from '../campaigns/spec/parse-spec.js';
import { specOfFlags } from '../campaigns/spec/spec-of-flags.js';
import { checkSpecWithFile, type TemplateFind } from '../campaigns/spec/spec-with-file.js';
import type { ProblemItem } from '../errors/problems-error.js';

export interface SendCampaignRequest {
  /** The campaign as the CLI's flags or the API's JSON give it: one shape for both. */
  flags: CampaignFlags;
  /** How a refusal names a field: by its flag at the CLI (CLI_FIELD_NAMES), by its JSON field at the API (FLAG_FIELD_NAMES). */
  names: FieldNames;
  /** The CSV of recipients. */
  file: string;
  /** The CLI's `--templates FILE` and the flag's name (a text campaign refuses it). */
  templatesFile?: { path: string; name: string } | undefined;
  /**
   * Every problem of the spec, of its file's header and of its template at once, with those
   * the caller found reading the flags (the API's 422); without it the first rule broken is
   * said as it is (the CLI).
   */
  everyProblem?: { found: readonly ProblemItem[] } | undefined;
  /** The clock a start is checked against; default this host's. */
  now?: number | undefined;
  /** `campaign retarget`: the campaign whose chosen rows make `file`; the new one is linked to it. */
  sourceCampaign?: string | undefined;
  /** Where refused rows go instead of the rejects file (the API's dry run keeps them for its answer). */
  rejects?: RejectsSink | undefined;
  /** Adds the created (or continued) campaign to its history as the caller is known; a dry run is not recorded. */
  record?: ((campaignId: string, action: 'create' | 'continue', detail: string) => Promise<void>) | undefined;
}

/**
 * `campaign send` and POST /campaigns: a campaign from its flags and a CSV. The flags become
 * a spec (specOfFlags) read once and checked once; createCampaign then finds the template,
 * reads the file into the ledger and plans the sending; what it created goes into the history.
 */
export async function sendCampaign(
  deps: CreateCampaignDeps,
  request: SendCampaignRequest,
  notices: CreateNotices = {},
): Promise<SendOutcome> {
  const spec = await checkedSpec(deps, request);
  let continuing = false;
  const onStart: CreateNotices['onStart'] = (start) => {
    continuing = start.continuing;
    notices.onStart?.(start);
  };
  const outcome = await createCampaign(
    deps,
    {
      spec,
      names: request.names,
      file: request.file,
      templatesFile: request.templatesFile?.path,
      sourceCampaign: request.sourceCampaign,
      rejects: request.rejects,
    },
    { ...notices, onStart },
  );
  if (!outcome.dryRun) await request.record?.(outcome.id, continuing ? 'continue' : 'create', sendDetail(request.file, outcome));
  return outcome;
}

/** The request's spec, read and checked: alone (the first broken rule), or with its file and template (every problem). */
async function checkedSpec(deps: CreateCampaignDeps, request: SendCampaignRequest): Promise<CheckedSpec> {
  const { names, templatesFile } = request;
  const spec = parseCampaignSpec(specOfFlags(request.flags), names);
  const context: SpecCheckContext = {
    now: request.now ?? Date.now(),
    defaultPhoneNumberId: deps.defaultPhoneNumberId,
    templateOnly: templatesFile === undefined ? [] : [templatesFile.name],
  };
  if (request.everyProblem === undefined) return checkCampaignSpec(spec, names, context);
  // Asked only when the spec has other problems, so they are all listed at once; else createCampaign finds it, once.
  const find: TemplateFind = (name, language) => approvedTemplate(deps.openTemplates(templatesFile?.path), name, language, names);
  return checkSpecWithFile(spec, request.file, names, context, request.everyProblem.found, find);
}

/** The history's word on a send: its file (by name: the path is the sender's machine's) and what it queued. */
function sendDetail(file: string, outcome: SendOutcome): string {
  const stopped = outcome.interruptedAtRow === undefined ? '' : `; reading stopped at row ${outcome.interruptedAtRow}`;
  return `${basename(file)}: ${outcome.queued} rows queued${stopped}`;
}
