import { z } from 'zod';

/**
 * Everything `campaign send` accepts, as one object: the CLI maps its flags onto it and the
 * HTTP API takes it as JSON. It holds values as the operator gave them (times, windows and
 * zones as text); checkCampaignSpec reads them, naming each field as its caller knows it.
 * Objects are strict: a misspelt field is refused, not ignored.
 */
export const campaignSpecSchema = z.strictObject({
  /** For people: free text, at most 100 characters (default: the file's name without its extension). The ID stays the key. */
  name: z.string().optional(),
  /** An approved template (`--template`, `--language`); exactly one of `template` and `text`. */
  template: z.strictObject({ name: z.string().optional(), language: z.string().optional() }).optional(),
  /** A free-form text whose `{{column}}` placeholders are filled per row (`--text`, `--preview-url`). */
  text: z.strictObject({ body: z.string().optional(), previewUrl: z.boolean().optional() }).optional(),
  /** How the file is read: which column holds what, and how its values are taken. */
  csv: z
    .strictObject({
      phoneColumn: z.string().default('phone'),
      /** Positional templates: the columns for {{1}}..{{n}}, in order. */
      params: z.array(z.string()).optional(),
      /** A variable (by name) filled from a column. */
      paramColumns: z.record(z.string(), z.string()).optional(),
      headerTextColumn: z.string().optional(),
      /** The https link of an image, video or document header. */
      headerMediaColumn: z.string().optional(),
      /** One column per URL button with a variable, in button order. */
      buttonUrlColumns: z.array(z.string()).optional(),
      /** With `trackClicks`: each row's destination, an http(s) URL, which `serve` redirects the row's tracked link to. */
      clickUrlColumn: z.string().optional(),
      /** A media header from a local file: its path, relative to the CSV file's folder and inside it. */
      headerFileColumn: z.string().optional(),
      /** Each row's language (`en_US`); the template's translation in it is sent, `template.language` the fallback. */
      languageColumn: z.string().optional(),
      /** With a window: each recipient's IANA zone (an empty cell: the number's). */
      timezoneColumn: z.string().optional(),
      /** ISO country of numbers written without a country code. */
      defaultCountry: z.string().optional(),
      /** With a window: the zone of rows whose number gives none, or whose zones never share an open hour. */
      defaultTimezone: z.string().optional(),
      /** Collapse line breaks, tabs and runs of spaces in values instead of rejecting the row. */
      fixWhitespace: z.boolean().optional(),
      /** `,` `;` `|` or `tab`; detected from the header when absent. */
      delimiter: z.string().optional(),
    })
    .default({ phoneColumn: 'phone' }),
  /**
   * When to send: a start (ISO 8601 with offset), a deadline to start by, and when unsent rows expire (an instant or a duration after the
   * start).
   */
  schedule: z
    .strictObject({
      at: z.string().optional(),
      startDeadline: z.string().optional(),
      expiresAt: z.string().optional(),
      validFor: z.string().optional(),
    })
    .optional(),
  /** Send only inside these hours (`09:00-20:00`) of each recipient's local day, on these days (`mon-fri`). */
  window: z.strictObject({ hours: z.string().optional(), days: z.string().optional() }).optional(),
  /** `high`, `normal` (the default) or `low`. */
  priority: z.string().optional(),
  /** The number to send from (default WHATSAPP_PHONE_NUMBER_ID). */
  phoneNumberId: z.string().optional(),
  /** Continue this campaign with its own file (fixed, completed or with rows added). */
  campaignId: z.string().optional(),
  /** Send even what the number already sent the recipient within DUPLICATE_WINDOW_HOURS. */
  allowRepeat: z.boolean().optional(),
  /** Send MARKETING templates to US numbers too (skipped as MARKETING_US_PAUSED otherwise: Meta paused them). */
  allowUsMarketing: z.boolean().optional(),
  /**
   * `messages` (the default) or `marketing-messages`: Meta's Marketing Messages API
   * (`/marketing_messages`), for MARKETING templates only.
   */
  endpoint: z.string().optional(),
  /**
   * `id` (the default): each distinct media header is fetched, checked and uploaded once per
   * number, and rows send its media ID; `link`: rows send the link, which Meta fetches per message.
   */
  mediaBy: z.string().optional(),
  /**
   * With the Marketing Messages API: how long Meta keeps trying to deliver, 12h to 30d
   * (`36h`, `2d`). Meta keeps it on the template, so it is set there before the file is read.
   */
  ttl: z.string().optional(),
  /** The IANA zone the plan's times are shown in. */
  displayTimezone: z.string().optional(),
  /** Check everything, create nothing but the rejects file. */
  dryRun: z.boolean().optional(),
  /** Refuse the campaign, before a row is queued, when its estimated cost is above this amount in the rate card's currency. */
  maxCost: z.number().optional(),
  /** Send to a stored audience of the portfolio (instead of a file), or to the segment of it `where` chooses. */
  audience: z.strictObject({ name: z.string().optional(), where: z.string().optional() }).optional(),
  /** MARKETING rows whose recipient has no opt-in on record are skipped as NO_CONSENT. */
  requireConsent: z.boolean().optional(),
  /** FREQUENCY_CAPS do not hold for this campaign (a recall notice); recorded in its history. */
  ignoreFrequencyCaps: z.boolean().optional(),
  /** A row Meta failed with 131049 (its marketing cap) is sent again once, this long after (`24h`). */
  retryCappedAfter: z.string().optional(),
  /** Send the first rows' messages to these numbers only (one row each), as a test. */
  testTo: z.array(z.string()).optional(),
  /**
   * Count clicks: the template's URL button whose link is `PUBLIC_URL/c/{{1}}` gets a random token per row, which `serve`
   * redirects to the row's `csv.clickUrlColumn`.
   */
  trackClicks: z.boolean().optional(),
});

/** A spec as given (JSON), before defaults. */
export type CampaignSpecInput = z.input<typeof campaignSpecSchema>;
/** A spec read by the schema (defaults filled in), not yet checked against the rules. */
export type CampaignSpec = z.output<typeof campaignSpecSchema>;
