export interface SendRun {
  rows: number;
  queued: number;
  campaignId: string;
  prefix: string;
  wallMs: number;
  rowsPerSecond: number;
  /** GNU time's %M: ru_maxrss of the node process, from the kernel at its exit. */
  peakRssMb: number;
  /** The highest VmHWM read from /proc/<node pid>/status while it ran (every 100 ms): a cross-check. */
  polledHwmMb: number | undefined;
  usedMemoryBefore: number;
  usedMemoryAfter: number;
  /** (used_memory after − before) / rows. */
  bytesPerRow: number;
  /** Σ MEMORY USAGE … SAMPLES 0 over the prefix's keys / rows: blind to other clients of this Redis. */
  keyBytesPerRow: number;
  /** Bytes per key pattern (the campaign ID as *), e.g. {"campaign:*:rows": 153000000}. */
  keyBytes: Record<string, number>;
  /** Keys other clients added (or removed) on this Redis during the send: > 0 means used_memory Δ is not ours alone. */
  otherKeysDelta: number;
  childCores: number | undefined;
  redisCores: number | undefined;
  machineCores: number | undefined;
  probeMs: number;
}

export interface ControlCall {
  what: string;
  /** Spawn → exit of the control command. */
  callSeconds: number;
  /** Median spawn → exit of `campaign --help`, just before (node + tsx + commander; no command module, no Redis). */
  helpSeconds: number;
  /**
   * Median spawn → exit of `campaign list` on an empty prefix, just before (start-up + config + Redis client and connection + one read).
   */
  listSeconds: number;
  /** callSeconds − listSeconds: the control's own cost, judged. */
  ownSeconds: number;
  /** callSeconds − helpSeconds: also the Redis client's loading and connection. */
  ownBeyondHelpSeconds: number;
  /** Inside the control's process: first Redis connection → exit (connect, the control, quit). */
  inProcessSeconds: number;
  /** The same inside `campaign list` on the empty prefix, median: what any command spends there. */
  listInProcessSeconds: number;
  output: string;
  /** Date.now() when the command exited. */
  returnedAt: number;
}

export interface DrainingObservations {
  /** Messages the sandbox accepted before the draining pause. */
  acceptedBeforePause: number;
  /** Accepted with receivedAt after pause returned, within WATCH_AFTER_MS (in-flight sends finishing). */
  acceptedAfterPauseReturned: number;
  /** Seconds from resume returning to the next accepted message. */
  firstSendAfterResumeSeconds: number;
  acceptedAfterCancelReturned: number;
  /** Rows the cancel reported as cancelled at once (those still in the backlog). */
  cancelledAtOnce: number | undefined;
  /**
   * Seconds from cancel returning until `campaign status` shows nothing queued or sending:
   * the rows already fed are cancelled as the worker reaches them (polled about every second).
   */
  answeredAfterCancelSeconds: number;
  statusAfterCancel: Record<string, unknown>;
}

export interface FeederRun {
  small: SendRun;
  large: SendRun;
  rssGrowth: number;
  pauseIdle: ControlCall;
  resumeIdle: ControlCall;
  pauseDraining: ControlCall;
  resumeDraining: ControlCall;
  cancelDraining: ControlCall;
  draining: DrainingObservations;
}
