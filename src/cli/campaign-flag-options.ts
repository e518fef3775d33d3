import type { Command } from 'commander';
import type { CampaignFlags } from '../campaigns/spec/campaign-flags.js';
import type { FlagHelp } from '../campaigns/spec/campaign-flag-help.js';
import { collectParam, list } from './option-values.js';

/**
 * A field of CampaignFlags as its flag: `phoneNumberId` is `--phone-number-id <id>`, so
 * commander's options are the flags' object. A list is written comma-separated, `--param
 * SLOT=COLUMN` repeated (the API's JSON takes an array and an object). `send` declares every
 * field this way, `retarget` those of the message.
 */
export function declareFlag(command: Command, field: keyof CampaignFlags, help: FlagHelp): void {
  const flag = `--${field.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}${help.value === undefined ? '' : ` ${help.value}`}`;
  if (field === 'params' || field === 'buttonUrlColumn' || field === 'testTo') command.option(flag, help.help, list);
  else if (field === 'param') command.option(flag, help.help, collectParam, {});
  else if (help.default !== undefined) command.option(flag, help.help, help.default);
  else command.option(flag, help.help);
}
