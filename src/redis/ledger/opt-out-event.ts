/** One opt-out or lift, as apply-optouts.lua takes it. */
export interface OptOutEvent {
  phone: string;
  /** `stop` / `resume`: user_preferences, the newest wins; `add`: keeps an entry already there; `remove`: the operator's. */
  action: 'stop' | 'resume' | 'add' | 'remove';
  /** ms; what stop and resume compare. */
  at: number;
  /** The source JSON an opt-out keeps (stop, add). */
  source?: string;
}
