// The worker's logic, free of worker globals so the unit tests drive it with a fake core:
// it owns one lane, runs it in time slices while "running", and streams progress.
import { addToRate, nextChunk, perSecond, toNextRecord, type CurvePoint, type FromWorker, type LaneView, type Rate, type ToWorker } from './protocol';
import type { Catalog, CoreConfig, Distribution, RunResult } from './types';

/** The part of `WasmLane` the runner uses. */
export interface CoreLane {
  run(updates: number): RunResult;
  distribution(): Distribution;
  weights(): Float32Array;
  chains(): Float32Array | undefined;
  exportModel(): string;
  readonly visible: number;
  readonly hidden: number;
  readonly iter: number;
  readonly seed: string;
  free(): void;
}

/** The wasm module, as the runner needs it. `newLane` throws an Error with the core's message. */
export interface Core {
  catalog(): Catalog;
  newLane(config: CoreConfig, dataset: string): CoreLane;
}

/** The worker's surroundings. */
export interface Host {
  post(msg: FromWorker, transfer?: Transferable[]): void;
  now(): number;
  /** Runs `fn` soon, after pending messages (a zero-delay task). */
  schedule(fn: () => void): void;
}

/** Minimum time between two snapshots of the model for the canvases. */
export const VIEW_MS = 250;

/** How many chains the page shows. */
export const VIEW_CHAINS = 24;

export function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

export class LaneRunner {
  private lane: CoreLane | null = null;
  private config: CoreConfig | null = null;
  private dataset = '';
  private running = false;
  private failed = false;
  private chunk = 1;
  private rate: Rate = { updates: 0, ms: 0 };
  /** The lane's evaluation interval (the core's default when the configuration has none). */
  private every = 10;
  private lastView = -Infinity;
  private pending = false;
  /** The update count last sent to the page. */
  private sentIter = -1;
  /** The update at which the lane pauses for good (null: never). */
  private until: number | null = null;

  constructor(
    private readonly core: Core,
    private readonly host: Host,
  ) {}

  /** Handles one message from the page. */
  handle(msg: ToWorker): void {
    switch (msg.type) {
      case 'configure':
        this.build(msg.config, msg.dataset, msg.field);
        break;
      case 'reset':
        if (this.config) this.build(this.config, this.dataset);
        break;
      case 'start':
        if (this.reached()) {
          this.finish();
          break;
        }
        this.running = this.lane !== null && !this.failed;
        this.host.post({ type: 'state', running: this.running });
        this.kick();
        break;
      case 'limit':
        this.until = msg.until;
        if (this.running && this.reached()) this.finish();
        break;
      case 'pause':
        this.running = false;
        // The final position first: once the page sees "paused", nothing moves any more.
        this.publish([], true);
        this.host.post({ type: 'state', running: false });
        break;
      case 'export':
        if (this.lane) this.host.post({ type: 'model', json: this.lane.exportModel() });
        break;
    }
  }

  private build(config: CoreConfig, dataset: string, field?: string): void {
    let lane: CoreLane;
    try {
      lane = this.core.newLane(config, dataset);
    } catch (e) {
      this.host.post({ type: 'rejected', message: errorMessage(e), field });
      return;
    }
    this.lane?.free();
    this.lane = lane;
    this.config = config;
    this.dataset = dataset;
    this.failed = false;
    this.chunk = 1;
    this.rate = { updates: 0, ms: 0 };
    this.every = typeof config.every === 'number' ? config.every : Number(this.core.catalog().defaults.every ?? 10);
    this.host.post({ type: 'configured', seed: lane.seed, field });
    this.slice(0, true);
    this.kick();
  }

  private kick(): void {
    if (this.running && !this.failed && !this.pending) {
      this.pending = true;
      this.host.schedule(() => this.tick());
    }
  }

  private reached(): boolean {
    return this.lane !== null && this.until !== null && this.lane.iter >= this.until;
  }

  /** Stops at the limit: the final position, then "done". */
  private finish(): void {
    this.running = false;
    this.publish([], true);
    this.host.post({ type: 'state', running: false, done: true });
  }

  /** One time slice: a chunk of updates sized to take about SLICE_MS. */
  tick(): void {
    this.pending = false;
    if (!this.running || this.failed || !this.lane) return;
    if (this.reached()) {
      this.finish();
      return;
    }
    let n = this.chunk;
    if (this.until !== null) n = Math.min(n, this.until - this.lane.iter);
    // When the canvases are due, end the slice on a record: the view then reuses the record's
    // exact log Z instead of enumerating once more.
    if (this.viewDue()) n = Math.min(n, toNextRecord(this.lane.iter, this.every));
    const t0 = this.host.now();
    this.slice(n, false, t0);
    const elapsed = this.host.now() - t0;
    if (n === this.chunk || elapsed > 0) this.chunk = nextChunk(n, elapsed);
    this.kick();
  }

  private viewDue(): boolean {
    return this.host.now() - this.lastView >= VIEW_MS;
  }

  private slice(updates: number, forceView: boolean, t0 = this.host.now()): void {
    const lane = this.lane!;
    const r = lane.run(updates);
    if (updates > 0) this.rate = addToRate(this.rate, updates, this.host.now() - t0);
    const points: CurvePoint[] = [];
    for (const rec of r.records) {
      if (rec.atll !== null) points.push({ iter: rec.iter, sweeps: rec.sweeps, atll: rec.atll });
    }
    const last = r.records[r.records.length - 1];
    if (r.error !== null) {
      this.failed = r.failed || this.failed;
      this.running = false;
      this.publish(points, true, last?.stats ?? null);
      this.host.post({ type: 'failed', message: r.error, iter: r.iter });
      this.host.post({ type: 'state', running: false });
      return;
    }
    this.publish(points, forceView, last?.stats ?? null);
  }

  private publish(points: CurvePoint[], forceView: boolean, stats: Record<string, number> | null = null): void {
    const lane = this.lane;
    if (!lane) return;
    let view: LaneView | null = null;
    const atRecord = lane.iter % this.every === 0;
    if (forceView || (this.viewDue() && (atRecord || this.host.now() - this.lastView >= 4 * VIEW_MS))) {
      view = this.view(lane);
      this.lastView = this.host.now();
    }
    if (!points.length && !view && !stats && lane.iter === this.sentIter) return;
    this.sentIter = lane.iter;
    const rate = perSecond(this.rate);
    const msg: FromWorker = { type: 'progress', points, iter: lane.iter, rate, stats, view };
    this.host.post(msg, view ? [view.weights.buffer as ArrayBuffer] : []);
  }

  private view(lane: CoreLane): LaneView {
    let dist: Distribution | null = null;
    try {
      dist = lane.distribution();
    } catch {
      // Too large to enumerate: the canvases show the weights only.
      dist = null;
    }
    const m = lane.visible;
    const c = lane.chains();
    let chains: Uint8Array | null = null;
    if (c) {
      const count = Math.min(VIEW_CHAINS, Math.floor(c.length / m));
      chains = Uint8Array.from(c.subarray(0, count * m), (x) => (x >= 0.5 ? 1 : 0));
    }
    return { iter: lane.iter, m, n: lane.hidden, weights: lane.weights(), dist, chains };
  }
}
