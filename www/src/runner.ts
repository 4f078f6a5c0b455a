// The worker's logic, free of worker globals so the unit tests drive it with a fake core: it
// owns one lane and its status (protocol.ts), runs it in time slices of one wasm `step` call
// each while running, and streams progress. A panic of the wasm core (a RuntimeError) makes the
// worker `fatal` with the panic's message; it then ignores everything until the page replaces it.
import type { ErrorInfo, SliceResult } from './generated/core';
import {
  addToRate,
  type CurvePoint,
  type FromWorker,
  isErrorInfo,
  type LaneConfig,
  type LaneStatus,
  type LaneView,
  nextChunk,
  perSecond,
  type Rate,
  type ToWorker,
  toNextRecord,
  VIEW_MS,
} from './protocol';

/** What `WasmLane.step` returns: its view carries the weights. */
export type Slice = Omit<SliceResult, 'view'> & { view: LaneView | null };

/** The part of `WasmLane` the runner uses. */
export interface CoreLane {
  step(updates: number, view: boolean): Slice;
  exportModel(): string;
  readonly iter: number;
  readonly seed: string;
  readonly every: number;
  free(): void;
}

/** The wasm module, as the runner needs it. `newLane` throws the core's ErrorInfo. */
export interface Core {
  newLane(config: LaneConfig, dataset: string): CoreLane;
  /** The message of the panic that stopped the module, if one did. */
  lastPanic(): string | undefined;
  panicForTest(): void;
}

/** The worker's surroundings. */
export interface Host {
  post(msg: FromWorker, transfer?: Transferable[]): void;
  now(): number;
  /** Runs `fn` soon, after pending messages (a zero-delay task). */
  schedule(fn: () => void): void;
}

export function errorMessage(e: unknown): string {
  if (isErrorInfo(e)) return e.message;
  return e instanceof Error ? e.message : String(e);
}

/** The message of a failure that broke the module: the panic's, if the core recorded one. */
export function fatalMessage(e: unknown, core: Pick<Core, 'lastPanic'> | null): string {
  let panic: string | undefined;
  try {
    panic = core?.lastPanic();
  } catch {
    panic = undefined;
  }
  if (panic) return panic;
  const what = e instanceof WebAssembly.RuntimeError ? 'the WebAssembly core stopped' : "the lane's worker failed";
  return `${what}: ${errorMessage(e)}`;
}

export class LaneRunner {
  private lane: CoreLane | null = null;
  private config: LaneConfig | null = null;
  private dataset = '';
  private status: LaneStatus = 'loading';
  private message: string | null = null;
  /** The generation of the lane in use (0: none yet). */
  private gen = 0;
  private chunk = 1;
  private rate: Rate = { updates: 0, ms: 0 };
  private every = 1;
  private lastView = -Infinity;
  private pending = false;
  /** The update at which the lane stops for good (null: never). */
  private until: number | null = null;

  constructor(
    private readonly core: Core,
    private readonly host: Host,
  ) {}

  /** Handles one message from the page. */
  handle(msg: ToWorker): void {
    this.guard(() => this.dispatch(msg));
  }

  /** One time slice: one `step` call sized to take about SLICE_MS (scheduled while running). */
  tick(): void {
    this.pending = false;
    this.guard(() => this.slice());
  }

  private guard(fn: () => void): void {
    if (this.status === 'fatal') return;
    try {
      fn();
    } catch (e) {
      // A panic (RuntimeError) or a bug: the module must not be used again.
      this.lane = null;
      this.setStatus('fatal', fatalMessage(e, this.core));
    }
  }

  private dispatch(msg: ToWorker): void {
    switch (msg.type) {
      case 'configure':
        this.build(msg.gen, msg.config, msg.dataset);
        break;
      case 'reset':
        if (this.config) this.build(msg.gen, this.config, this.dataset);
        break;
      case 'start':
        if (!this.lane || this.status === 'failed') {
          this.setStatus(this.status, this.message);
        } else if (this.reached()) {
          this.setStatus('done');
        } else {
          this.setStatus('running');
          this.kick();
        }
        break;
      case 'pause':
        if (this.status === 'running' && this.lane) {
          // The final position first: once the page sees "paused", nothing moves any more.
          this.publish(this.lane.step(0, true));
          this.setStatus('paused');
        }
        break;
      case 'limit':
        this.until = msg.until;
        if (this.status === 'running' && this.lane && this.reached()) {
          this.publish(this.lane.step(0, true));
          this.setStatus('done');
        }
        break;
      case 'export':
        if (this.lane) this.host.post({ type: 'model', gen: this.gen, json: this.lane.exportModel() });
        break;
      case 'crash':
        this.core.panicForTest();
        break;
    }
  }

  private build(gen: number, config: LaneConfig, dataset: string): void {
    let lane: CoreLane;
    try {
      lane = this.core.newLane(config, dataset);
    } catch (e) {
      if (!isErrorInfo(e)) throw e; // a panic while building: fatal
      this.reject(gen, e);
      return;
    }
    this.lane?.free();
    this.lane = lane;
    this.config = config;
    this.dataset = dataset;
    this.gen = gen;
    this.chunk = 1;
    this.rate = { updates: 0, ms: 0 };
    this.every = Math.max(1, lane.every);
    this.host.post({ type: 'configured', gen, seed: lane.seed, every: this.every });
    // The initial record (update 0) and the first view.
    this.lastView = this.host.now();
    this.publish(lane.step(0, true));
    // A running lane keeps running with its new configuration; anything else starts afresh.
    if (this.status === 'running' && !this.reached()) this.setStatus('running');
    else this.setStatus('ready');
    this.kick();
  }

  private reject(gen: number, error: ErrorInfo): void {
    this.host.post({ type: 'rejected', gen, error, kept: this.gen });
    if (!this.lane) this.setStatus('failed', error.message);
  }

  private setStatus(status: LaneStatus, message: string | null = null): void {
    this.status = status;
    this.message = message;
    this.host.post({ type: 'status', gen: this.gen, status, message });
  }

  private kick(): void {
    if (this.status === 'running' && !this.pending) {
      this.pending = true;
      this.host.schedule(() => this.tick());
    }
  }

  private reached(): boolean {
    return this.lane !== null && this.until !== null && this.lane.iter >= this.until;
  }

  private slice(): void {
    const lane = this.lane;
    if (this.status !== 'running' || !lane) return;
    if (this.reached()) {
      this.setStatus('done');
      return;
    }
    const iter = lane.iter;
    let n = this.chunk;
    if (this.until !== null) n = Math.min(n, this.until - iter);
    const t0 = this.host.now();
    const since = t0 - this.lastView;
    // When the panels' view is due, end the slice on a record: the view then reuses the
    // record's exact log Z instead of enumerating once more.
    if (since >= VIEW_MS) n = Math.min(n, toNextRecord(iter, this.every));
    const end = iter + n;
    // The last slice before the limit always shows the final position.
    const view = end === this.until || (since >= VIEW_MS && (end % this.every === 0 || since >= 4 * VIEW_MS));
    const r = lane.step(n, view);
    const elapsed = this.host.now() - t0;
    if (n > 0) this.rate = addToRate(this.rate, n, elapsed);
    if (n === this.chunk || elapsed > 0) this.chunk = nextChunk(n, elapsed);
    if (r.view) this.lastView = this.host.now();
    this.publish(r);
    if (r.error) {
      this.setStatus('failed', r.error.message);
      return;
    }
    if (this.reached()) {
      this.setStatus('done');
      return;
    }
    this.kick();
  }

  private publish(r: Slice): void {
    const points: CurvePoint[] = [];
    for (const rec of r.records) {
      if (rec.atll !== null) points.push({ iter: rec.iter, sweeps: rec.sweeps, atll: rec.atll });
    }
    const last = r.records[r.records.length - 1];
    const msg: FromWorker = {
      type: 'progress',
      gen: this.gen,
      points,
      iter: r.iter,
      rate: perSecond(this.rate),
      stats: last ? last.stats : null,
      view: r.view,
    };
    this.host.post(msg, r.view ? [r.view.weights.buffer as ArrayBuffer] : []);
  }
}
