/**
 * Who created or controlled a campaign, and what they did: the HTTP API's token, the
 * campaigns page's user or the operator at the CLI. Each entry is written after its action
 * worked, so the history never names a control that did not happen; the campaign's page
 * shows it, newest first.
 */

export type ActorKind = 'token' | 'dashboard' | 'cli';

/**
 * token: the API token's name; dashboard: DASHBOARD_USER ('' without a password);
 * cli: the OS user that ran the command ('' when the system cannot say).
 */
export interface CampaignActor {
  kind: ActorKind;
  name: string;
}

export type CampaignAction = 'create' | 'continue' | 'pause' | 'resume' | 'cancel' | 'reschedule' | 'retry' | 'retarget';

export interface HistoryEntry {
  /** ms since the epoch, by the clock of the process that acted. */
  at: number;
  actor: CampaignActor;
  action: CampaignAction;
  /** What the action said: a pause's reason, the new start, the source of a retargeted campaign. */
  detail?: string;
}

export interface CampaignHistory {
  /** Adds an entry; only the newest entries are kept (the store's cap). */
  record(campaignId: string, entry: HistoryEntry): Promise<void>;
  /** The campaign's entries, newest first; none for a campaign never recorded (or purged). */
  list(campaignId: string): Promise<HistoryEntry[]>;
}

const ACTOR_KINDS: readonly ActorKind[] = ['token', 'dashboard', 'cli'];
const ACTIONS: readonly CampaignAction[] = ['create', 'continue', 'pause', 'resume', 'cancel', 'reschedule', 'retry', 'retarget'];

/** "token crm", "dashboard user alice", "dashboard (no password set)", "CLI (user root)". */
export function describeActor(actor: CampaignActor): string {
  switch (actor.kind) {
    case 'token':
      return `token ${actor.name}`;
    case 'dashboard':
      return actor.name === '' ? 'dashboard (no password set)' : `dashboard user ${actor.name}`;
    case 'cli':
      return actor.name === '' ? 'CLI' : `CLI (user ${actor.name})`;
  }
}

/** A stored entry read back: undefined when it is not one (written by hand, or damaged), so one bad entry hides only itself. */
export function historyEntryOf(value: unknown): HistoryEntry | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { at, actor, action, detail } = value as Record<string, unknown>;
  if (typeof at !== 'number' || !Number.isFinite(at)) return undefined;
  if (typeof action !== 'string' || !ACTIONS.includes(action as CampaignAction)) return undefined;
  if (typeof actor !== 'object' || actor === null) return undefined;
  const { kind, name } = actor as Record<string, unknown>;
  if (typeof kind !== 'string' || !ACTOR_KINDS.includes(kind as ActorKind) || typeof name !== 'string') return undefined;
  const entry: HistoryEntry = { at, actor: { kind: kind as ActorKind, name }, action: action as CampaignAction };
  if (typeof detail === 'string') entry.detail = detail;
  return entry;
}
