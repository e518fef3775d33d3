/** The feeder section's reference figures (one BullMQ job per row at ingest), its targets, and how it drives the worker. */

/** Measured on a 1,000,000-row campaign with one BullMQ job per row written at ingest (the design the feeder replaced). */
export const JOB_PER_ROW_REDIS_MB = 962;
/** 962 MB over 1,000,000 rows (about 1 KB per row: BullMQ jobs ~870 B, ledger ~94 B). */
export const JOB_PER_ROW_REDIS_BYTES_PER_ROW = (JOB_PER_ROW_REDIS_MB * 1_000_000) / 1_000_000;
export const JOB_PER_ROW_SEND_PEAK_RSS_MB = 486;
/** Whole CLI calls (`time campaign pause|resume|cancel ID`), start-up included. */
export const JOB_PER_ROW_PAUSE_SECONDS = 22;
export const JOB_PER_ROW_RESUME_SECONDS = 74;
export const JOB_PER_ROW_CANCEL_SECONDS = 42;
export const JOB_PER_ROW_LABEL = 'one job per row at ingest';

/** What the feeder must reach. */
export const TARGET_REDIS_BYTES_PER_ROW = 250;
export const TARGET_SEND_PEAK_RSS_MB = 250;
export const TARGET_INGEST_ROWS_PER_SECOND = 20_000;
export const TARGET_CONTROL_SECONDS = 1;
/**
 * "Flat in the file's size", made checkable: ten times the rows may add at most 10% to the
 * peak RSS (the hand measurement before this section existed: 196 MB → 242 MB, 1.23x).
 */
export const TARGET_RSS_GROWTH_PER_10X_ROWS = 1.1;

/** The worker during the draining controls: the product's default rate and concurrency. */
export const DRAIN_SEND_RATE = 80;
export const DRAIN_CONCURRENCY = 50;
/** Start-up calls of each kind per control, median taken: start-up is the noisier half of the difference. */
export const STARTUP_SAMPLES = 3;
/** How long sends are watched after pause/cancel returned. */
export const WATCH_AFTER_MS = 3000;
