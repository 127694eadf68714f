// Types of crawl-sieve (node/index.js, node/src/addon.cc).

/** Log levels of the messages the Sieve emits (sieve/log.h). */
export type LogLevel = 0 | 1 | 2 | 3; // debug, info, warning, error

export interface RuntimeOptions {
  /** Queued URL bytes kept in RAM before the queue spills to spillDir; 64 MiB. */
  queueMemoryBudgetBytes?: number;
  /** Where spill segments go; default $TMPDIR or /tmp. */
  spillDir?: string;
  /** Receives the Sieve's messages on the JS thread (asynchronously);
   * default: stderr, info and up. */
  log?: (level: LogLevel, message: string) => void;
}

export interface SieveOptions extends RuntimeOptions {
  /** Distinct URLs the filter is sized for (about 1.2 bytes each at fpRate
   * 0.01, allocated at once); 10,000,000. */
  expectedCount?: number;
  /** Wanted rate of new URLs wrongly dropped as seen, in (0, 1); 0.01. */
  fpRate?: number;
  /** 'warn' (fixed memory, a warning past expectedCount) or 'grow' (the
   * filter grows, the rate stays bounded); 'warn'. */
  overflow?: 'warn' | 'grow';
  /** Within one priority, pop the newest URL first; saved in checkpoints. */
  lifo?: boolean;
}

/** A popped URL, the payload pushed with it (empty if none) and its priority. */
export interface Entry {
  url: string;
  payload: Buffer;
  priority: number;
}

export interface Lane {
  priority: number;
  queued: number;
}

/** sieve_stats (sieve/stats.h gives each field's meaning), camelCase. */
export interface SieveStats {
  queued: number;
  inFlight: number;
  accepted: number;
  dropped: number;
  popped: number;
  done: number;
  deferred: number;
  lost: number;
  refused: number;
  producers: number;
  closed: boolean;
  /** null when the filter is saturated (no estimate). */
  estimatedCount: number | null;
  filterSaturated: boolean;
  capacity: number;
  targetFpRate: number;
  currentFpRate: number;
  fillRatio: number;
  overflowWarnings: number;
  filterBytes: number;
  queueMemoryBytes: number;
  queueDiskBytes: number;
  spilledSegments: number;
  /** Priorities with URLs queued. */
  laneCount: number;
  /** The highest lanes (at most 16), highest first. */
  lanes: Lane[];
}

export type Payload = Buffer | Uint8Array | string;

export class SieveError extends Error {
  /** The C API's status name: 'SIEVE_INVALID_ARGUMENT', 'SIEVE_NOT_FOUND',
   * 'SIEVE_DATA_LOSS', 'SIEVE_REFUSED', 'SIEVE_IO_ERROR', 'SIEVE_INTERNAL', ... */
  code: string;
}

export class Sieve implements AsyncIterable<Entry> {
  /** A new, empty Sieve. SieveError (SIEVE_INVALID_ARGUMENT) names a bad
   * option value; TypeError an unknown option or a wrong type. */
  constructor(options?: SieveOptions);
  /** Restores the Sieve checkpointed in dir by save(). */
  static open(dir: string, options?: RuntimeOptions): Promise<Sieve>;
  /** Writes a checkpoint into dir (created if missing), atomically. */
  save(dir: string): Promise<void>;

  /** Enqueues url at priority (an int32, higher pops first; 0); true if it
   * was new, false if (probably) seen or the Sieve is closed. SieveError
   * SIEVE_REFUSED for a payload over MAX_PAYLOAD_BYTES or a priority that
   * would open a lane past MAX_LANES. */
  push(url: string, payload?: Payload | null, priority?: number): boolean;
  /** push() for many URLs at once; one boolean per URL. A payload over the
   * limit or a priority past the lane bound is refused alone (false). */
  pushBatch(urls: string[], payloads?: Payload[] | null, priorities?: number[] | null): boolean[];
  /** The next URL; waits (without blocking the event loop) while the queue
   * is empty and a URL is in flight or a producer is open; null when
   * nothing more will come (or the Sieve is closed). */
  pop(): Promise<Entry | null>;
  /** pop() without waiting: null if nothing is queued right now. */
  tryPop(): Entry | null;
  /** A popped URL is handled; false if it was not in flight. */
  done(url: string): boolean;
  /** A popped URL goes back behind every URL of its priority; false if it
   * was not in flight. */
  defer(url: string): boolean;
  /** Wakes every waiting pop (they resolve null) and refuses further pushes
   * and pops; queued URLs stay and can be saved. */
  close(): void;
  isFinished(): boolean;
  /** While a producer is open, pops wait on an empty queue. */
  addProducer(): void;
  producerDone(): void;
  withProducer<T>(fn: (sieve: Sieve) => Promise<T> | T): Promise<T>;
  stats(): SieveStats;
  /** Throws SieveError while the Sieve cannot keep its contract (its queue
   * cannot spill to disk, or spilled URLs were lost). */
  health(): void;
  [Symbol.asyncIterator](): AsyncIterator<Entry>;
}

export const MAX_PAYLOAD_BYTES: number;
export const MAX_LANES: number;
export const MIN_PRIORITY: number;
export const MAX_PRIORITY: number;
