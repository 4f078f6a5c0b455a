// The worker's logic, free of worker globals so the unit tests drive it with a fake core: it
// owns one lane and its status (protocol/messages.ts), runs it in time slices of one wasm `step` call
// each while running, and streams progress. A configuration on a data set this worker has not
// loaded yet waits for it (status `loading`, with byte counts), then builds; a newer
// configuration replaces the waiting one. A panic of the wasm core (a RuntimeError) makes the
// worker `fatal` with the panic's message; it then ignores everything until the page replaces it.
//
// A lane whose exact curve is deferred (a smaller layer above 20 units, e.g. 784×25) ends a
// slice on each record, sends the model to the page (`exact`) and trains on once the page's
// evaluation pool sent the partial sums back (`exactParts`, or `exactSkip` if cancelled). The
// same runner serves the pool's evaluation workers: `logz` asks for the partial sums of a run
// of blocks of a model's enumeration.

import type { AisEstimate, AisProgress, ErrorInfo, ExactResult, LoadedSet, SliceResult, TracedSlice } from '../generated/core';
import { dataError } from '../protocol/data';
import { type EstimateReport, type EstimateSettings, startingReport } from '../protocol/estimate';
import {
  addToRate,
  type CurvePoint,
  type DataSource,
  type FromWorker,
  isErrorInfo,
  type LaneConfig,
  type LaneStatus,
  type LaneView,
  type LoadedModel,
  nextChunk,
  perSecond,
  type Rate,
  SLICE_MS,
  type StatPoint,
  type ToWorker,
  TURN_MS,
  toNextRecord,
  VIEW_MS,
} from '../protocol/messages';
import type { AnalysisLane } from './analyses';
import { AnalysisJobs } from './analysisJobs';

/** What `WasmLane.step` returns: its view carries the weights. */
export type Slice = Omit<SliceResult, 'view'> & { view: LaneView | null };

/** The part of `WasmAis` the runner uses: one AIS or RAISE run on a copy of a lane's model. */
export interface CoreEstimate {
  /** Up to `maxSteps` more annealing steps (at least one). Throws the core's ErrorInfo. */
  step(maxSteps: number): AisProgress;
  /** The estimate, once `step` said done. */
  result(): AisEstimate;
  free(): void;
}

/** The part of `WasmLane` the runner uses. */
export interface CoreLane extends AnalysisLane {
  /** Up to `updates` updates; with `withinMs`, fewer once that much wall time has passed. */
  step(updates: number, view: boolean, withinMs?: number): Slice;
  exportModel(): string;
  /** The update the exported model is of (after a divergence: the last record's). */
  readonly modelIter: number;
  /** AIS (or RAISE when `reverse`) of `dataset` under a copy of the current model, with `betas`
   * linear β or `schedule` 'sm2008' (Salakhutdinov & Murray's). Throws ErrorInfo. */
  ais(dataset: string, particles: number, betas: number, seed: number, reverse: boolean, schedule?: string): CoreEstimate;
  /** Exact ATLL of `dataset`, or undefined/null when the model is too large to enumerate. */
  exactAtll(dataset: string): number | null | undefined;
  /** Blocks of the lane's deferred exact evaluation (0: none; the records carry their ATLL). */
  readonly exactBlocks: number;
  /** Whether the view's model distribution needs the deferred record's log Z (so the view
   * waits for it; undefined: false). */
  readonly viewAfterExact?: boolean;
  /** The model's binary bytes (for the evaluation pool). */
  exportModelBinary(): Uint8Array;
  /** The deferred record's exact ATLL from every block's partial sums, in order. Throws ErrorInfo. */
  finishExact(parts: Float64Array): ExactResult;
  readonly iter: number;
  readonly seed: string;
  readonly every: number;
  /** Why the lane has no exact curve (its evaluation exceeds the page's budget), if so. */
  readonly notice?: string | null;
  /** The lane's configuration (after `resumeLane`: the options it continues with). */
  readonly config: Record<string, number | string | null>;
  /** One update in slow motion, showing its first `show` batch rows and chains. */
  stepTraced(show: number): TracedSlice;
  /** Sets a live option from the next update on. Throws ErrorInfo. */
  setLive(key: string, value: number | string | null): void;
  /** A GPU lane: copies of its records or view are on their way, so `step` is called again
   * (even paused) until they are in. */
  readonly busy?: boolean;
  /** The GPU adapter the lane runs on (undefined/null: the CPU). */
  readonly gpu?: string | null;
  /** Test hook: destroys a GPU lane's device. */
  loseGpuForTest?(): void;
  free(): void;
}

/** The wasm module, as the runner needs it. `newLane` throws the core's ErrorInfo. */
export interface Core {
  /** `gpu`: on the browser's GPU (opened before by the worker); where it cannot be, on the CPU
   * (`gpuRefused` then says why). */
  newLane(config: LaneConfig, dataset: string, gpu?: boolean): CoreLane;
  /** Why the latest lane asked for the GPU runs on the CPU (null: it does not). */
  gpuRefused?(): string | null;
  /** The worker's GPU failed (`why`): later lanes asked for it run on the CPU. */
  gpuFailed?(why: string): void;
  /** A lane continuing model file `bytes` (with the file's per-lane options when `recorded`).
   * Throws the core's ErrorInfo saying what is wrong with the file. */
  resumeLane(config: LaneConfig, dataset: string, bytes: Uint8Array, recorded: boolean): CoreLane;
  /** The message of the panic that stopped the module, if one did. */
  lastPanic(): string | undefined;
  panicForTest(): void;
  /** Whether the data of source `key` is loaded in this module. */
  hasData(key: string): boolean;
  /** Loads a data source into this module (a second call for a key under way joins it):
   * the sets it made available, or a rejection with the core's ErrorInfo (key 'data'). */
  loadData(source: DataSource, progress: (received: number, total: number | null) => void): Promise<LoadedSet[]>;
  /** The partial sums ([max, sum] per block) of blocks `from`..`to` of the exact log Z of a
   * model given as binary bytes. Throws ErrorInfo. */
  logZBlocks(model: Uint8Array, from: number, to: number): Float64Array;
}

/** Batch rows and chains a slow-motion trace shows. */
export const SLOW_MOTION_ROWS = 8;

/** Least time between two `loading` messages of one load. */
export const LOADING_MS = 100;

/** Least time between two progress reports of an estimate. */
export const ESTIMATE_REPORT_MS = 100;

/** An estimate under way: AIS then RAISE, both on the model as it was when asked for. */
interface EstimateJob {
  id: number;
  gen: number;
  /** The two runs (AIS, RAISE); `runs[phase]` is the one under way. */
  runs: [CoreEstimate, CoreEstimate];
  phase: 0 | 1;
  /** Steps per `step` call, sized like the training slices (about SLICE_MS each). */
  chunk: number;
  report: EstimateReport;
  lastReport: number;
  /** One of the `autoEstimate` schedule's (training waits for it), with the Gibbs sweeps per
   * chain at its update. */
  scheduled: { sweeps: number } | null;
}

/** The `autoEstimate` schedule: brackets at update 0, every `every` updates and at the end. */
interface EstimateSchedule {
  every: number;
  dataset: string;
  settings: EstimateSettings;
  /** The next update due. */
  next: number;
  /** The update of the latest bracket started (−1: none). */
  last: number;
  seq: number;
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
  /** Milliseconds spent in `step` calls since the lane was built. */
  private busy = 0;
  /** A configuration whose data is loading (the status is `loading` meanwhile). */
  private waiting: { gen: number; config: LaneConfig; dataset: string; source: DataSource } | null = null;
  /** Whether the lane runs once the waiting configuration is built. */
  private resume = false;
  /** The status (and message) before the load, to return to if it fails. */
  private before: { status: LaneStatus; message: string | null } = { status: 'loading', message: null };
  private lastLoading = -Infinity;
  /** The log-likelihood estimate under way, interleaved with the training slices. */
  private job: EstimateJob | null = null;
  /** The deferred exact evaluation the lane waits for (it trains on once it is back). */
  private exactWait: { id: number; iter: number; sweeps: number } | null = null;
  /** A view is due once the awaited exact evaluation is in (see `viewAfterExact`). */
  private viewAfterExact = false;
  private exactSeq = 0;
  /** Whether the lane's configuration asks for the GPU. */
  private compute: 'gpu' | undefined = undefined;
  /** When the latest slice of a GPU lane started (its rate is over wall time: its updates
   * run on the GPU after `step` returns). */
  private lastStart: number | null = null;
  /** An estimate asked for while a GPU lane's copies were on their way (started once in). */
  private estimateAsked: Extract<ToWorker, { type: 'estimate' }> | null = null;
  /** Wall time since the last slice of a GPU lane that did updates. */
  private gpuWall = 0;
  /** The model file the lane continues (until the next `configure`): `reset` returns to it. */
  private file: { bytes: Uint8Array; name: string } | null = null;
  /** The analyses of the lane's model under way (protocol/analyses.ts), interleaved like the estimate. */
  private readonly analyses: AnalysisJobs;
  /** Brackets at a schedule (`autoEstimate`), kept across lanes; null: none. */
  private schedule: EstimateSchedule | null = null;
  /** The latest record's update and Gibbs sweeps per chain (the sweeps of a scheduled bracket). */
  private lastRecord = { iter: 0, sweeps: 0 };
  /** Whether the lane takes turns with others (app/turns.ts): it computes only during a turn. */
  private gated = false;
  /** When the turn held ends (host time; null: no turn held). */
  private turnEnds: number | null = null;
  /** Whether the page knows the lane waits for a turn. */
  private asked = false;

  constructor(
    private readonly core: Core,
    private readonly host: Host,
  ) {
    this.analyses = new AnalysisJobs(
      (msg) => host.post(msg),
      () => host.now(),
    );
  }

  /** Handles one message from the page. */
  handle(msg: ToWorker): void {
    this.guard(() => this.dispatch(msg));
    // A turn (or the wait for one) whose work ended here — a Pause, a new lane — goes back at once.
    if ((this.turnEnds !== null || this.asked) && !this.hasWork()) this.endTurn();
  }

  /** One time slice: one `step` call sized to take about SLICE_MS (scheduled while running),
   * then, while an estimate is under way, one slice of it of about the same length — so a
   * running lane trains at about half its speed meanwhile. */
  tick(): void {
    this.pending = false;
    this.guard(() => {
      if (!this.mayCompute()) {
        // Waiting for a turn: only a GPU lane's copies are collected meanwhile.
        if (this.lane?.busy === true) this.collect(this.lane);
        this.kick();
        return;
      }
      this.slice();
      const asked = this.estimateAsked;
      if (asked && this.lane?.busy !== true) {
        this.estimateAsked = null;
        this.startEstimate(asked.gen, asked.id, asked.dataset, asked.settings);
      }
      this.startScheduled();
      this.estimateSlice();
      this.analyses.slice();
      if (this.turnEnds !== null && (this.host.now() >= this.turnEnds || !this.hasWork())) this.endTurn();
      this.kick();
    });
  }

  /** Whether the lane has computing to do: training, an estimate or an analysis. */
  private hasWork(): boolean {
    const training = this.status === 'running' && this.lane !== null && this.exactWait === null && !this.waiting;
    return training || this.job !== null || this.analyses.busy || this.estimateAsked !== null;
  }

  /** Whether the lane may compute now: it does not take turns, or holds one. */
  private mayCompute(): boolean {
    return !this.gated || this.turnEnds !== null;
  }

  /** Hands the turn back, saying whether the lane waits for another. */
  private endTurn(): void {
    this.turnEnds = null;
    const more = this.hasWork();
    this.asked = more;
    this.host.post({ type: 'turnOver', more });
  }

  private guard(fn: () => void): void {
    if (this.status === 'fatal') return;
    try {
      fn();
    } catch (e) {
      // A panic (RuntimeError) or a bug: the module must not be used again.
      this.lane = null;
      this.job = null;
      this.analyses.drop();
      this.exactWait = null;
      this.viewAfterExact = false;
      this.setStatus('fatal', fatalMessage(e, this.core));
      // The module is done for: a turn held or asked for goes to the other lanes.
      if (this.gated) this.host.post({ type: 'turnOver', more: false });
      this.turnEnds = null;
    }
  }

  private dispatch(msg: ToWorker): void {
    switch (msg.type) {
      case 'configure':
        this.file = null;
        this.compute = msg.compute;
        if (msg.source && !this.core.hasData(msg.source.key)) this.load(msg.gen, msg.config, msg.dataset, msg.source);
        else this.build(msg.gen, msg.config, msg.dataset);
        break;
      case 'reset':
        // While data loads, the lane it is for will be fresh anyway: it takes the new generation.
        if (this.waiting) this.waiting.gen = msg.gen;
        else if (this.config && this.file) this.continueFrom(msg.gen, this.config, this.dataset, this.file, false);
        else if (this.config) this.build(msg.gen, this.config, this.dataset);
        break;
      case 'loadModel':
        if (this.waiting) this.host.post({ type: 'modelRefused', gen: msg.gen, message: 'the lane is loading its data: load the model once it is ready' });
        else this.continueFrom(msg.gen, msg.config, msg.dataset, { bytes: new Uint8Array(msg.bytes), name: msg.name }, true);
        break;
      case 'live':
        this.live(msg.key, msg.value);
        break;
      case 'trace':
        this.traced(msg.gen);
        break;
      case 'start':
        if (this.waiting) {
          this.resume = true;
        } else if (!this.lane || this.status === 'failed') {
          this.setStatus(this.status, this.message);
        } else if (this.reached()) {
          this.setStatus('done');
        } else {
          this.setStatus('running');
          this.kick();
        }
        break;
      case 'pause':
        if (this.waiting) {
          this.resume = false;
        } else if (this.status === 'running' && this.lane) {
          // The answer first (every slice already told the page its position), then the panels'
          // view of that position, which may enumerate log Z (tens of ms, more on a loaded
          // machine); a distribution that waits for the pool's log Z comes with it.
          this.status = 'paused';
          this.message = null;
          this.host.post({ type: 'status', gen: this.gen, status: 'paused', message: null, iter: this.lane.iter });
          // The turn goes back with the answer, not after the view (64 lanes' views take seconds).
          if (this.turnEnds !== null || this.asked) this.endTurn();
          this.publish(this.lane.step(0, true));
          if (this.exactWait && this.lane.viewAfterExact === true) this.viewAfterExact = true;
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
        if (this.lane) this.host.post({ type: 'model', gen: this.gen, iter: this.lane.modelIter, json: this.lane.exportModel() });
        break;
      case 'crash':
        this.core.panicForTest();
        break;
      case 'loseGpu':
        this.lane?.loseGpuForTest?.();
        break;
      case 'probe':
        this.probe(msg.id, msg.source);
        break;
      case 'estimate':
        // A stopped GPU lane's last record is still on its way: the estimate takes the model of
        // the update the lane stopped at, once it is in (a running one's: its latest record's).
        if (this.lane?.busy === true && this.status !== 'running') this.estimateAsked = msg;
        else this.startEstimate(msg.gen, msg.id, msg.dataset, msg.settings);
        break;
      case 'autoEstimate':
        if (this.job?.scheduled) this.endEstimate('cancelled');
        this.schedule =
          msg.every === null ? null : { every: Math.max(1, Math.floor(msg.every)), dataset: msg.dataset, settings: msg.settings, next: 0, last: -1, seq: 0 };
        this.rewindSchedule();
        this.kick();
        break;
      case 'cancelEstimate':
        if (this.estimateAsked?.id === msg.id) this.estimateAsked = null;
        if (this.job?.id === msg.id) this.endEstimate('cancelled');
        break;
      case 'analysis':
        this.analyses.start(this.lane && msg.gen === this.gen && !this.waiting ? this.lane : null, this.dataset, msg.gen, msg.id, msg.request);
        this.kick();
        break;
      case 'cancelAnalysis':
        this.analyses.cancel(msg.id);
        break;
      case 'logz':
        this.logz(msg.id, msg.model, msg.from, msg.to);
        break;
      case 'exactParts':
        this.finishExact(msg.gen, msg.id, msg.parts);
        break;
      case 'exactSkip':
        if (msg.gen === this.gen && this.exactWait?.id === msg.id) {
          this.exactWait = null;
          this.viewAfterExact = false;
          this.kick();
        }
        break;
      case 'gate':
        // Taking turns starts or ends: a turn held or asked for is void either way.
        this.gated = msg.on;
        this.turnEnds = null;
        this.asked = false;
        this.kick();
        break;
      case 'turn':
        this.asked = false;
        if (!this.gated) break; // granted before the lanes stopped taking turns: computing freely
        this.turnEnds = this.host.now() + TURN_MS;
        this.lastStart = null; // a GPU lane's rate counts its own turns' wall time
        this.kick(); // no work left: `handle` hands the turn back at once
        break;
    }
  }

  /** Evaluation worker: the partial sums of blocks `from`..`to` of `model`'s exact log Z. */
  private logz(id: number, model: ArrayBuffer, from: number, to: number): void {
    let parts: Float64Array;
    try {
      parts = this.core.logZBlocks(new Uint8Array(model), from, to);
    } catch (e) {
      if (!isErrorInfo(e)) throw e; // a panic: fatal
      this.host.post({ type: 'logzFailed', id, message: e.message });
      return;
    }
    this.host.post({ type: 'logzParts', id, from, parts }, [parts.buffer as ArrayBuffer]);
  }

  /** Sends the model of the record just made to the page's evaluation pool; the lane waits. */
  private requestExact(lane: CoreLane, iter: number, sweeps: number): void {
    const bytes = lane.exportModelBinary();
    const model = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
    this.exactSeq += 1;
    this.exactWait = { id: this.exactSeq, iter, sweeps };
    this.host.post({ type: 'exact', gen: this.gen, id: this.exactSeq, iter, blocks: lane.exactBlocks, model }, [model]);
  }

  /** The pool's partial sums of the awaited evaluation: the point of the curve, then training. */
  private finishExact(gen: number, id: number, parts: Float64Array): void {
    const w = this.exactWait;
    const lane = this.lane;
    if (!w || !lane || gen !== this.gen || w.id !== id) return;
    this.exactWait = null;
    const r = lane.finishExact(parts); // a mismatch is a bug: fatal
    const view = this.viewAfterExact ? lane.step(0, true).view : null;
    this.viewAfterExact = false;
    if (view) this.lastView = this.host.now();
    this.host.post(
      {
        type: 'progress',
        gen: this.gen,
        points: [{ iter: w.iter, sweeps: w.sweeps, atll: r.atll }],
        iter: lane.iter,
        rate: perSecond(this.rate),
        elapsed: this.busy,
        stats: null,
        view,
      },
      view ? [view.weights.buffer as ArrayBuffer] : [],
    );
    this.kick();
  }

  /** The schedule's next update from the lane's position (a new lane: update 0). */
  private rewindSchedule(): void {
    const s = this.schedule;
    if (!s) return;
    const iter = this.lane?.iter ?? 0;
    s.next = Math.ceil(iter / s.every) * s.every;
    s.last = -1;
  }

  /** Whether the schedule's next bracket is due: at its update, or at the end point. */
  private estimateDue(): boolean {
    const s = this.schedule;
    const lane = this.lane;
    if (!s || !lane || this.waiting) return false;
    return lane.iter >= s.next || (this.until !== null && lane.iter >= this.until && s.last < lane.iter);
  }

  /** Starts the schedule's bracket when due, once the lane is at rest at its update (a GPU
   * lane's copies in), no other estimate runs and the lane trains (or just reached its end). */
  private startScheduled(): void {
    const s = this.schedule;
    const lane = this.lane;
    if (!s || !lane || this.job || this.exactWait || lane.busy === true || !this.estimateDue()) return;
    if (this.status !== 'running' && this.status !== 'done') return;
    const iter = lane.iter;
    const rec = this.lastRecord;
    // Gibbs sweeps at the bracket's update: its record's, else at the pace of the latest record
    // (NaN when no record past update 0 tells the pace: the chart leaves it off the sweeps axis).
    const sweeps = rec.iter === iter ? rec.sweeps : iter === 0 ? 0 : rec.iter > 0 ? (rec.sweeps * iter) / rec.iter : Number.NaN;
    s.last = iter;
    s.next = (Math.floor(iter / s.every) + 1) * s.every;
    s.seq += 1;
    this.startEstimate(this.gen, s.seq, s.dataset, s.settings, { sweeps });
  }

  /** Starts an estimate of lane `gen`'s current model (replacing one under way). */
  private startEstimate(gen: number, id: number, dataset: string, settings: EstimateSettings, scheduled: { sweeps: number } | null = null): void {
    if (this.job) this.endEstimate('cancelled');
    const report: EstimateReport = startingReport(dataset, settings, 0);
    const tag = scheduled ? { scheduled } : {};
    const fail = (error: string) => this.host.post({ type: 'estimate', gen, id, report: { ...report, state: 'failed', error }, ...tag });
    const lane = this.lane;
    if (!lane || gen !== this.gen || this.waiting) {
      fail('the lane changed: ask again');
      return;
    }
    report.iter = lane.iter;
    const t0 = this.host.now();
    let runs: CoreEstimate[] = [];
    try {
      const { particles, betas, seed, schedule } = settings;
      runs = [lane.ais(dataset, particles, betas, seed, false, schedule), lane.ais(dataset, particles, betas, seed, true, schedule)];
      report.exact = lane.exactAtll(dataset) ?? null;
    } catch (e) {
      for (const r of runs) r.free();
      if (!isErrorInfo(e)) throw e; // a panic: fatal
      fail(e.message);
      return;
    }
    report.ms = this.host.now() - t0;
    this.job = { id, gen, runs: [runs[0], runs[1]], phase: 0, chunk: 1, report, lastReport: -Infinity, scheduled };
    this.reportEstimate(true);
    this.kick();
  }

  /** One slice of the estimate under way (about SLICE_MS). */
  private estimateSlice(): void {
    const job = this.job;
    if (!job) return;
    const run = job.runs[job.phase];
    const t0 = this.host.now();
    let p: AisProgress;
    try {
      p = run.step(job.chunk);
    } catch (e) {
      if (!isErrorInfo(e)) throw e;
      job.report.error = e.message;
      this.endEstimate('failed');
      return;
    }
    const elapsed = this.host.now() - t0;
    job.chunk = nextChunk(job.chunk, elapsed);
    job.report.ms += Math.max(0, elapsed);
    const r = job.report;
    r.total = 2 * p.totalSteps;
    r.done = job.phase * p.totalSteps + p.doneSteps;
    if (p.done) {
      const result = run.result();
      if (job.phase === 0) {
        r.ais = result;
        job.phase = 1;
        r.phase = 'raise';
        this.reportEstimate(true);
      } else {
        r.raise = result;
        this.endEstimate('done');
        return;
      }
    } else {
      this.reportEstimate(false);
    }
    this.kick();
  }

  /** Posts the estimate's progress (at most every ESTIMATE_REPORT_MS unless `now`). */
  private reportEstimate(now: boolean): void {
    const job = this.job;
    if (!job) return;
    const t = this.host.now();
    if (!now && t - job.lastReport < ESTIMATE_REPORT_MS) return;
    job.lastReport = t;
    this.host.post({ type: 'estimate', gen: job.gen, id: job.id, report: { ...job.report }, ...(job.scheduled ? { scheduled: job.scheduled } : {}) });
  }

  /** Ends the estimate under way, frees its runs and says how it ended. */
  private endEstimate(state: 'done' | 'cancelled' | 'failed'): void {
    const job = this.job;
    if (!job) return;
    this.job = null;
    for (const r of job.runs) r.free();
    job.report.state = state;
    this.host.post({ type: 'estimate', gen: job.gen, id: job.id, report: { ...job.report }, ...(job.scheduled ? { scheduled: job.scheduled } : {}) });
  }

  /** Loads the data of a configuration, then builds it (unless a newer one replaced it). */
  private load(gen: number, config: LaneConfig, dataset: string, source: DataSource): void {
    if (!this.waiting) {
      this.resume = this.status === 'running';
      this.before = { status: this.status, message: this.message };
    }
    this.waiting = { gen, config, dataset, source };
    if (this.status !== 'loading') this.setStatus('loading');
    this.lastLoading = -Infinity;
    this.loading(source.key, 0, null);
    const key = source.key;
    this.core
      .loadData(source, (received, total) => this.loading(key, received, total))
      .then(
        () => this.guard(() => this.loaded(key)),
        (e: unknown) => this.guard(() => this.loadFailed(key, e)),
      );
  }

  /** Reports the bytes of the waiting configuration's data received so far (at a bounded rate). */
  private loading(key: string, received: number, total: number | null): void {
    const w = this.waiting;
    if (!w || w.source.key !== key || this.status === 'fatal') return;
    const now = this.host.now();
    if (now - this.lastLoading < LOADING_MS && received !== total) return;
    this.lastLoading = now;
    this.host.post({ type: 'loading', gen: w.gen, label: w.source.label, received, total });
  }

  private loaded(key: string): void {
    const w = this.waiting;
    if (w?.source.key !== key) return; // replaced meanwhile
    this.build(w.gen, w.config, w.dataset);
  }

  private loadFailed(key: string, e: unknown): void {
    const w = this.waiting;
    if (w?.source.key !== key) return;
    if (!isErrorInfo(e)) throw e; // a panic in the core's loader: fatal
    const run = this.resume;
    this.waiting = null;
    this.reject(w.gen, e.key ? e : dataError(e.message));
    this.restore(run);
  }

  /** After a load that came to nothing: the kept lane as it was (running again if it should). */
  private restore(run: boolean): void {
    if (!this.lane) return; // no lane to return to: `reject` made the worker `failed`
    const { status, message } = this.before;
    if (run && status !== 'failed' && status !== 'loading' && !this.reached()) {
      this.setStatus('running');
      this.kick();
    } else if (status === 'running' || status === 'loading') {
      this.setStatus('paused');
    } else {
      this.setStatus(status, message);
    }
  }

  /** Loads a source on the page's behalf and says what it holds (or why it cannot). */
  private probe(id: number, source: DataSource): void {
    this.core
      .loadData(source, () => undefined)
      .then(
        (sets) => this.guard(() => this.host.post({ type: 'probed', id, sets, error: null })),
        (e: unknown) =>
          this.guard(() => {
            if (!isErrorInfo(e)) throw e;
            this.host.post({ type: 'probed', id, sets: [], error: e });
          }),
      );
  }

  /** One update in slow motion: a running lane pauses first; the update's records, its view
   * and its phases go to the page; the lane then waits (paused) for Start. */
  private traced(gen: number): void {
    const lane = this.lane;
    if (!lane || gen !== this.gen || this.waiting || this.exactWait || this.status === 'failed' || this.reached()) return;
    const r = lane.stepTraced(SLOW_MOTION_ROWS);
    this.publish({ records: r.records, iter: r.iter, error: r.error, failed: r.error !== null, view: null });
    if (r.error) {
      this.setStatus('failed', r.error.message);
      return;
    }
    this.lastView = this.host.now();
    this.publish(lane.step(0, true));
    if (r.trace) this.host.post({ type: 'trace', gen, trace: r.trace });
    this.setStatus(this.reached() ? 'done' : 'paused');
  }

  /** A live edit: the lane takes `value` from its next update on (and a reset keeps it). */
  private live(key: string, value: number | string | null): void {
    const lane = this.lane;
    if (!lane || !this.config) return;
    try {
      lane.setLive(key, value);
    } catch (e) {
      if (!isErrorInfo(e)) throw e;
      this.host.post({ type: 'liveRefused', gen: this.gen, key, message: e.message });
      return;
    }
    this.config = { ...this.config, [key]: value as number | string };
  }

  /** The lane continues a model file; a refused file leaves everything as it was. */
  private continueFrom(gen: number, config: LaneConfig, dataset: string, file: { bytes: Uint8Array; name: string }, recorded: boolean): void {
    let lane: CoreLane;
    try {
      lane = this.core.resumeLane(config, dataset, file.bytes, recorded);
    } catch (e) {
      if (!isErrorInfo(e)) throw e; // a panic while reading: fatal
      this.host.post({ type: 'modelRefused', gen, message: `'${file.name}' was not loaded: ${e.message}` });
      return;
    }
    this.file = file;
    const merged: LaneConfig = {};
    for (const [k, v] of Object.entries(lane.config)) if (v !== null) merged[k] = v;
    this.install(gen, lane, merged, dataset, this.status === 'running', { name: file.name, config: lane.config });
  }

  private build(gen: number, config: LaneConfig, dataset: string): void {
    // Waiting for data, the lane runs afterwards if it ran before or `start` came meanwhile.
    const waited = this.waiting !== null;
    const run = waited ? this.resume : this.status === 'running';
    this.waiting = null;
    let lane: CoreLane;
    try {
      lane = this.core.newLane(config, dataset, this.compute === 'gpu');
    } catch (e) {
      if (!isErrorInfo(e)) throw e; // a panic while building: fatal
      this.reject(gen, e);
      if (waited) this.restore(run);
      return;
    }
    this.install(gen, lane, config, dataset, run);
  }

  /** Takes a newly built lane as the worker's lane of generation `gen`. */
  private install(gen: number, lane: CoreLane, config: LaneConfig, dataset: string, run: boolean, loaded?: LoadedModel): void {
    this.lane?.free();
    // An estimate is of the lane it was asked for: a new lane ends it (and any wait for the
    // old lane's exact evaluation).
    this.endEstimate('cancelled');
    this.analyses.cancelAll();
    this.exactWait = null;
    this.viewAfterExact = false;
    this.lane = lane;
    this.config = config;
    this.dataset = dataset;
    this.gen = gen;
    this.chunk = 1;
    this.rate = { updates: 0, ms: 0 };
    this.busy = 0;
    this.every = Math.max(1, lane.every);
    this.lastRecord = { iter: lane.iter, sweeps: 0 };
    this.rewindSchedule();
    const refused =
      this.compute !== 'gpu' || lane.gpu
        ? null
        : loaded
          ? 'a lane continued from a model file runs there'
          : (this.core.gpuRefused?.() ?? 'the GPU was not available');
    const notice = [refused && `Runs on the CPU: ${refused}.`, lane.notice].filter(Boolean).join(' ');
    const gpu = lane.gpu ?? undefined;
    this.lastStart = null;
    this.host.post({
      type: 'configured',
      gen,
      seed: lane.seed,
      every: this.every,
      ...(notice ? { notice } : {}),
      ...(loaded ? { loaded } : {}),
      ...(gpu ? { gpu } : {}),
    });
    // The initial record (update 0) and the first view.
    this.lastView = this.host.now();
    this.publish(lane.step(0, true));
    // A running lane keeps running with its new configuration; anything else starts afresh.
    if (run && !this.reached()) this.setStatus('running');
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
    // Nothing to compute while the lane waits for the pool's exact evaluation: no tick (the
    // pool's answer kicks it again), so the evaluation workers have the cores.
    const work = this.hasWork();
    if (work && !this.mayCompute() && !this.asked) {
      this.asked = true;
      this.host.post({ type: 'wantTurn' });
    }
    if (this.pending) return;
    if ((work && this.mayCompute()) || this.lane?.busy === true) {
      this.pending = true;
      this.host.schedule(() => this.tick());
    }
  }

  private reached(): boolean {
    return this.lane !== null && this.until !== null && this.lane.iter >= this.until;
  }

  private slice(): void {
    const lane = this.lane;
    // A GPU lane's copies still on their way: collect them (records, the view asked for).
    if (lane?.busy === true && (this.status !== 'running' || this.exactWait)) {
      this.collect(lane);
      return;
    }
    if (this.status !== 'running' || !lane || this.exactWait) return;
    // Training waits for the schedule's bracket (a GPU lane's copies still come in).
    if (this.job?.scheduled || this.estimateDue()) {
      if (lane.busy === true) {
        this.lastStart = null;
        const r = lane.step(0, false);
        this.publish(r);
        this.failed(lane, r);
      }
      return;
    }
    if (this.reached()) {
      this.setStatus('done');
      return;
    }
    this.trainSlice(lane);
  }

  /** A GPU lane's copies that are in: its records and the view asked for. */
  private collect(lane: CoreLane): void {
    this.lastStart = null;
    const r = lane.step(0, false);
    this.publish(r);
    this.failed(lane, r);
  }

  private trainSlice(lane: CoreLane): void {
    const iter = lane.iter;
    let n = this.chunk;
    if (this.until !== null) n = Math.min(n, this.until - iter);
    // A slice ends at the schedule's next bracket.
    if (this.schedule) n = Math.min(n, Math.max(1, this.schedule.next - iter));
    const t0 = this.host.now();
    const since = t0 - this.lastView;
    // When the panels' view is due, end the slice on a record: the view then reuses the
    // record's exact log Z instead of enumerating once more. A deferred exact curve ends every
    // slice on a record, so the model sent to the pool is the record's.
    if (since >= VIEW_MS || lane.exactBlocks > 0) n = Math.min(n, toNextRecord(iter, this.every));
    const end = iter + n;
    // The last slice before the limit always shows the final position.
    const view = end === this.until || (since >= VIEW_MS && (end % this.every === 0 || since >= 4 * VIEW_MS));
    // A view whose distribution needs a record's log Z is made at a record, once the pool's
    // answer is in (elsewhere only the final position's).
    const afterExact = lane.viewAfterExact === true;
    const atRecord = end % this.every === 0;
    if (afterExact && view && atRecord) this.viewAfterExact = true;
    // Sized for SLICE_MS, the slice still ends at twice that when the machine gives the worker
    // less of a core than it had (then fewer updates are done).
    const r = lane.step(n, afterExact ? view && !atRecord && end === this.until : view, 2 * SLICE_MS);
    const done = Math.max(0, r.iter - iter);
    if (lane.gpu) {
      // The GPU does the updates after `step` returns; the lane sizes its own slices.
      const wall = this.lastStart === null ? 0 : Math.max(0, t0 - this.lastStart);
      this.lastStart = t0;
      this.gpuWall += wall;
      this.busy += wall;
      if (done > 0 && this.gpuWall > 0) {
        this.rate = addToRate(this.rate, done, this.gpuWall);
        this.gpuWall = 0;
      }
      this.chunk = Math.max(this.chunk, n, 1 << 16);
    } else {
      const elapsed = this.host.now() - t0;
      if (done > 0) this.rate = addToRate(this.rate, done, elapsed);
      this.busy += Math.max(0, elapsed);
      if (done === this.chunk || done < n || elapsed > 0) this.chunk = nextChunk(Math.max(1, done), elapsed);
    }
    if (r.view) this.lastView = this.host.now();
    this.publish(r);
    if (this.failed(lane, r)) return;
    if (this.reached()) {
      this.setStatus('done');
      return;
    }
    this.kick();
  }

  /** Whether slice `r` stopped the lane: a GPU lane whose GPU failed goes on on the CPU;
   * anything else (a divergence) fails it. */
  private failed(lane: CoreLane, r: Slice): boolean {
    if (!r.error) return false;
    if (lane.gpu && r.error.kind !== 'diverged' && this.toCpu(lane, r.error.message)) return true;
    this.setStatus('failed', r.error.message);
    return true;
  }

  /** The lane of a failed GPU continued on the CPU from its latest record (the model the page
   * has; its curve stays), saying why; false where even that cannot be built. */
  private toCpu(lane: CoreLane, why: string): boolean {
    const config = this.config;
    if (!config) return false;
    this.core.gpuFailed?.(why);
    let next: CoreLane;
    try {
      next = this.core.resumeLane(config, this.dataset, new TextEncoder().encode(lane.exportModel()), false);
    } catch (e) {
      if (!isErrorInfo(e)) throw e;
      return false;
    }
    const from = next.iter;
    lane.free();
    this.endEstimate('cancelled');
    this.analyses.cancelAll();
    this.exactWait = null;
    this.viewAfterExact = false;
    this.lane = next;
    this.chunk = 1;
    this.lastStart = null;
    this.every = Math.max(1, next.every);
    this.host.post({ type: 'movedToCpu', gen: this.gen, notice: `The GPU stopped (${why}): the lane goes on on the CPU from update ${from}.` });
    // Its first record repeats the point at `from` the page already has.
    const first = next.step(0, true);
    this.lastView = this.host.now();
    this.publish({ ...first, records: [] });
    if (this.status === 'running') this.kick();
    return true;
  }

  private publish(r: Slice): void {
    const points: CurvePoint[] = [];
    for (const rec of r.records) {
      if (rec.atll !== null) points.push({ iter: rec.iter, sweeps: rec.sweeps, atll: rec.atll });
    }
    const last = r.records[r.records.length - 1];
    if (last) this.lastRecord = { iter: last.iter, sweeps: last.sweeps };
    const statPoints: StatPoint[] = [];
    for (const rec of r.records) if (rec.stats && Object.keys(rec.stats).length) statPoints.push({ iter: rec.iter, sweeps: rec.sweeps, stats: rec.stats });
    const msg: FromWorker = {
      type: 'progress',
      gen: this.gen,
      points,
      iter: r.iter,
      rate: perSecond(this.rate),
      elapsed: this.busy,
      stats: last ? last.stats : null,
      ...(statPoints.length ? { statPoints } : {}),
      view: r.view,
    };
    this.host.post(msg, r.view ? [r.view.weights.buffer as ArrayBuffer] : []);
    // A record whose exact ATLL is deferred: the lane waits for the pool (see requestExact).
    const lane = this.lane;
    if (last && last.atll === null && lane && lane.exactBlocks > 0 && last.iter === lane.iter) this.requestExact(lane, last.iter, last.sweeps);
  }
}
