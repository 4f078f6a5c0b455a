// A lane as the page holds it, DOM-free: its worker, the status the worker reports, its curve,
// statistics and view, and the generation of its configuration. The worker comes from an
// injectable factory, so the unit tests drive a handle with a fake worker.
//
// Generations: `configure` and `reset` send generation `sent + 1`. A `configured` or `rejected`
// reply is taken only if it answers the latest generation sent; `progress` and `status` only if
// they describe the lane the handle shows (`gen`); `loading` (data on its way for a
// configuration) only if it is about the latest generation sent. Anything else is stale and dropped.

import type { AisEstimate, ErrorInfo, Trace } from '../generated/core';
import { type AnalysisKind, type AnalysisReport, type AnalysisReports, type AnalysisRequest, startingAnalysis } from '../protocol/analyses';
import { DEFAULT_ESTIMATE, type EstimateReport, type EstimateSettings, estimateDataset, startingReport } from '../protocol/estimate';
import {
  type DataSource,
  epochNow,
  type FromWorker,
  type LaneConfig,
  type LaneStatus,
  type LaneView,
  type LoadedModel,
  type ToWorker,
} from '../protocol/messages';
import type { OptionValue } from '../protocol/schema';
import { appendPoints, appendStats, type Curve, emptyCurve, emptyStatCurve, type StatCurve } from './curve';
import type { LaneState } from './state';

/** The part of a Worker the handle uses. */
export interface WorkerLike {
  postMessage(msg: ToWorker): void;
  terminate(): void;
  onmessage: ((e: MessageEvent<FromWorker>) => void) | null;
  onerror: ((e: ErrorEvent) => void) | null;
}

/** Makes a lane's worker (`name` is for the browser's tools). */
export type WorkerFactory = (name: string) => WorkerLike;

/** What a handle tells its owner. */
export interface LaneEvents {
  /** Something shown changed. */
  changed(lane: LaneHandle): void;
  /** The model file the page asked for, of update `iter` (a diverged lane's: its last record's). */
  model(lane: LaneHandle, json: string, iter: number): void;
  /** The lane waits for the exact evaluation of its record (the page's evaluation pool). */
  exact?(lane: LaneHandle, request: ExactRequest): void;
  /** The lane's pending exact evaluation is of no use any more (a new lane, a new worker, gone). */
  exactStale?(lane: LaneHandle): void;
  /** The core refused the latest configuration; the lane keeps training on `accepted`. */
  refused?(lane: LaneHandle, error: ErrorInfo): void;
  /** Lanes taking turns (turns.ts): the lane asks for a turn (`want`), or hands its turn back
   * (`more`: it waits for the next). */
  turn?(lane: LaneHandle, want: boolean, more: boolean): void;
  /** The lane's worker was replaced: what the old one held or asked for is void. */
  respawned?(lane: LaneHandle): void;
}

/** A lane's request for the exact evaluation of its record at update `iter`. */
export type ExactRequest = Extract<FromWorker, { type: 'exact' }>;

/** An exact evaluation of a lane's record, as the page shows it. */
export interface ExactJob {
  id: number;
  gen: number;
  iter: number;
  /** Blocks (of 2^16 states) done, of `total`. */
  done: number;
  total: number;
  /** When it was asked for (performance.now()). */
  started: number;
  /** Points ahead of it in the evaluation pool's queue (0: its blocks are being enumerated). */
  ahead: number;
  /** When the pool began enumerating its blocks (null: still queued). */
  began: number | null;
  state: 'running' | 'failed';
  message: string | null;
}

/**
 * What a lane whose worker died (status `fatal`) keeps and what it lost, in words; null while
 * its worker lives. The page holds the curve; the model lived in the worker only.
 */
export function fatalNote(lane: Pick<LaneHandle, 'status' | 'iter' | 'curve'>): string | null {
  if (lane.status !== 'fatal') return null;
  const n = lane.curve.iter.length;
  const kept = n
    ? `Kept: its curve, ${n} point${n === 1 ? '' : 's'} to update ${lane.curve.iter[n - 1].toLocaleString('en')} (the chart, its PNG and Download curve (CSV)).`
    : 'Kept: nothing, it had no curve point yet.';
  return `${kept} Lost: its model at update ${lane.iter.toLocaleString('en')}, which lived in the worker (no model download); Restart lane builds it again from update 0 and clears the curve.`;
}

/** One bracket of a lane's log-likelihood from its AIS schedule: AIS (Salakhutdinov & Murray
 * 2008) and RAISE (Burda et al. 2015) of the test data at update `iter`. */
export interface Bracket {
  iter: number;
  /** Gibbs sweeps per chain at `iter` (the equal-compute axis). */
  sweeps: number;
  ais: AisEstimate;
  raise: AisEstimate;
}

/** The brackets with one more (in update order, one per update). */
export function addBracket(brackets: readonly Bracket[], b: Bracket): Bracket[] {
  return [...brackets.filter((x) => x.iter !== b.iter), b].sort((x, y) => x.iter - y.iter);
}

export class LaneHandle implements LaneState {
  readonly id: number;
  readonly algo: string;
  label: string | null;
  /** The lane's valid option values (what its configuration and the URL hold). */
  options: Record<string, OptionValue>;
  /** Messages for option inputs whose text the page could not read (not sent to the core). */
  inputErrors: Record<string, string> = {};
  /** The core's refusal of the latest configuration (null once one is accepted). */
  rejection: ErrorInfo | null = null;
  status: LaneStatus = 'loading';
  /** Why the lane failed or its worker broke. */
  message: string | null = null;
  /** Why the lane has no exact curve though its size allows one (the page's budget). */
  notice: string | null = null;
  /** The GPU adapter the worker's lane runs on (null: the CPU). */
  gpu: string | null = null;
  /** Whether the lane asks for the GPU (the page's Compute choice). */
  private compute: 'gpu' | undefined = undefined;
  seed = '';
  every = 0;
  iter = 0;
  rate = 0;
  /** Milliseconds the worker spent training this lane. */
  elapsed = 0;
  /** Data being loaded for the latest configuration (null: none). */
  dataLoad: { label: string; received: number; total: number | null } | null = null;
  stats: Record<string, number> = {};
  curve: Curve = emptyCurve();
  /** Its records' statistics over training (UCD's τ history). */
  statCurve: StatCurve = emptyStatCurve();
  view: LaneView | null = null;
  /** The latest log-likelihood estimate (AIS / RAISE) of this lane, under way or finished. */
  estimate: EstimateReport | null = null;
  /** "AIS every N updates": the worker brackets the log-likelihood at update 0, every N
   * updates and at the end point, training waiting for each (null: no schedule). */
  aisEvery: number | null;
  /** The brackets of the schedule so far, in update order. */
  brackets: Bracket[] = [];
  /** The schedule's bracket under way (or the last one that failed). */
  scheduled: EstimateReport | null = null;
  /** The exact evaluation the lane waits for (a deferred exact curve), or the last that failed. */
  exact: ExactJob | null = null;
  /** Time the lane waited for its deferred exact points (queue and enumeration), and how many:
   * the ETA counts the points still to come at this pace. */
  exactWaits = { ms: 0, points: 0 };
  /** How long the worker took to answer the latest Pause of a running lane: from the page's
   * message to the worker's status reply, by their clocks (ms; null: none measured). */
  pauseReply: number | null = null;
  /** The update the worker's reply to the latest Pause of a running lane names: where the lane
   * stopped (null: none yet). No update may follow it until the lane runs again. */
  pausedAt: number | null = null;
  private pauseSent: number | null = null;
  /** The phases of the lane's latest slow-motion update (null: none since it was built). */
  trace: Trace | null = null;
  /** The model file the lane continues, or is loading, or the last one refused (null: none
   * since the latest configuration). */
  modelFile: { name: string; state: 'loading' | 'loaded' | 'refused'; message: string | null } | null = null;
  /** The id of the latest estimate asked for. */
  private estimateId = 0;
  /** The latest analysis of each kind (protocol/analyses.ts), under way or finished. */
  analyses: AnalysisReports = {};
  /** The id of the latest analysis of each kind asked for (ids are shared by the kinds). */
  private analysisIds: Partial<Record<AnalysisKind, number>> = {};
  private analysisSeq = 0;
  /** The generation of the lane shown (its accepted configuration); 0: none yet. */
  gen = 0;
  /** The latest generation sent. */
  sent = 0;
  /** The latest generation the worker answered (configured or rejected). */
  answered = 0;
  private worker: WorkerLike;
  private config: LaneConfig | null = null;
  /** Options whose input must show the value in use again (the core refused the text). */
  readonly reverted = new Set<string>();
  /** The configuration the worker's lane was built with (null: none accepted yet). */
  accepted: LaneConfig | null = null;
  /** The data set the worker's lane was built on, and where it came from (null: none yet). */
  private acceptedData: { dataset: string; source: DataSource | null } | null = null;
  /** The generation of the latest `configure` (a `reset` keeps the configuration, and so its refusal). */
  private configureGen = 0;
  private dataset = '';
  private source: DataSource | null = null;
  private until: number | null = null;
  /** Whether the lane takes turns with the others (turns.ts). */
  private gated = false;

  constructor(
    state: LaneState,
    private readonly factory: WorkerFactory,
    private readonly events: LaneEvents,
  ) {
    this.id = state.id;
    this.algo = state.algo;
    this.label = state.label;
    this.options = { ...state.options };
    this.aisEvery = state.aisEvery ?? null;
    this.worker = this.spawn();
  }

  private spawn(): WorkerLike {
    const w = this.factory(`lane ${this.id} (${this.algo})`);
    w.onmessage = (e) => this.receive(e.data);
    w.onerror = (e) => {
      e.preventDefault?.();
      this.events.turn?.(this, false, false); // a dead worker holds no turn
      this.status = 'fatal';
      this.message = `the lane's worker failed: ${e.message || 'unknown error'}`;
      this.events.changed(this);
    };
    if (this.until !== null) w.postMessage({ type: 'limit', until: this.until });
    if (this.gated) w.postMessage({ type: 'gate', on: true });
    return w;
  }

  /** Whether the lane takes turns with the others: more lanes than compute at once. */
  get takesTurns(): boolean {
    return this.gated;
  }

  /** Tells the worker whether to take turns. */
  gate(on: boolean): void {
    if (on === this.gated) return; // a new worker learns it in `spawn`
    this.gated = on;
    this.post({ type: 'gate', on });
  }

  /** Gives the worker a turn. */
  grant(): void {
    this.post({ type: 'turn' });
  }

  private post(msg: ToWorker): void {
    this.worker.postMessage(msg);
  }

  /** Sends a new configuration; returns its generation. A running lane keeps running.
   * `source` says where the worker loads `dataset` from if it has not yet. */
  configure(config: LaneConfig, dataset: string, source: DataSource | null = null, compute: 'gpu' | undefined = this.compute): number {
    this.compute = compute;
    this.config = config;
    this.dataset = dataset;
    this.source = source;
    this.sent += 1;
    this.configureGen = this.sent;
    const gpu = compute ? { compute } : {};
    this.post(source ? { type: 'configure', gen: this.sent, config, dataset, source, ...gpu } : { type: 'configure', gen: this.sent, config, dataset, ...gpu });
    if (this.aisEvery !== null) this.postSchedule();
    return this.sent;
  }

  private postSchedule(): void {
    this.post({ type: 'autoEstimate', every: this.aisEvery, dataset: estimateDataset(this.dataset), settings: DEFAULT_ESTIMATE });
  }

  /** Sets "AIS every N updates" (null: off); the brackets so far stay. */
  setAisEvery(every: number | null): void {
    const n = every === null || !(every >= 1) ? null : Math.floor(every);
    if (n === this.aisEvery) return;
    this.aisEvery = n;
    if (this.config) this.postSchedule();
    if (n === null) this.scheduled = null;
    this.events.changed(this);
  }

  /** The latest configuration sent (null: none yet). */
  get latest(): LaneConfig | null {
    return this.config;
  }

  /** The data set of the latest configuration sent ('' before the first): after a refusal,
   * the one the lane still trains on. */
  get latestData(): string {
    return this.dataset;
  }

  /** The data set the worker's lane was built on (null: none accepted yet). */
  get trainsOn(): string | null {
    return this.acceptedData?.dataset ?? null;
  }

  /** Whether the worker holds the lane of the latest configuration, accepted and usable (a
   * live edit can reach it). */
  get built(): boolean {
    return this.gen > 0 && this.answered === this.sent && this.rejection === null && this.status !== 'failed' && this.status !== 'fatal';
  }

  /** The update at which the lane stops for good (null: never). */
  get limitAt(): number | null {
    return this.until;
  }

  start(): void {
    this.pauseSent = null;
    this.post({ type: 'start' });
  }

  pause(): void {
    if (this.status === 'running') this.pauseSent = epochNow();
    this.post({ type: 'pause' });
  }

  /** Back to update 0 with the last accepted configuration. */
  reset(): void {
    this.sent += 1;
    this.post({ type: 'reset', gen: this.sent });
  }

  /** Stop for good at update `until` (null: run on). */
  limit(until: number | null): void {
    this.until = until;
    this.post({ type: 'limit', until });
  }

  exportModel(): void {
    this.post({ type: 'export' });
  }

  /** Continue from a model file (its bytes and name): the worker checks it with the core; a bad
   * file leaves the lane as it is, with a message. False when there is no lane to load into. */
  loadModel(bytes: ArrayBuffer, name: string): boolean {
    if (!this.config || this.gen === 0) return false;
    this.sent += 1;
    this.post({ type: 'loadModel', gen: this.sent, config: this.config, dataset: this.dataset, bytes, name });
    this.modelFile = { name, state: 'loading', message: null };
    this.events.changed(this);
    return true;
  }

  /** A model file the page refused before sending it (modelFile.ts: its size). */
  refuseModel(name: string, message: string): void {
    this.modelFile = { name, state: 'refused', message };
    this.events.changed(this);
  }

  /** Option `key` (live in the schema) takes `value` from the lane's next update on: the lane
   * keeps its model and its curve. */
  setLive(key: string, value: OptionValue): void {
    this.liveBefore[key] = this.options[key] ?? null;
    this.setOption(key, value);
    this.post({ type: 'live', key, value });
  }

  /** The values live edits replaced, until the worker refuses one (`liveRefused`). */
  private liveBefore: Record<string, OptionValue> = {};

  /** Option `key` is `value` in the settings, the configuration and the accepted one. */
  private setOption(key: string, value: OptionValue): void {
    this.options[key] = value;
    const set = (c: LaneConfig): LaneConfig => {
      const config = { ...c };
      if (value === null) delete config[key];
      else config[key] = value;
      return config;
    };
    if (this.config) this.config = set(this.config);
    if (this.accepted) this.accepted = set(this.accepted);
  }

  private modelWaiters: ((json: string) => void)[] = [];

  /** The lane's current model file (JSON), fetched from its worker without a download. */
  fetchModel(): Promise<string> {
    return new Promise((resolve) => {
      this.modelWaiters.push(resolve);
      this.post({ type: 'export' });
    });
  }

  /** Asks the worker to estimate the log-likelihood (AIS, then RAISE) of the test data under
   * the lane's current model, between its training slices. False when there is no lane yet. */
  estimateLikelihood(settings: EstimateSettings): boolean {
    if (this.gen === 0 || this.status === 'loading' || this.status === 'fatal') return false;
    this.estimateId += 1;
    const dataset = estimateDataset(this.dataset);
    this.post({ type: 'estimate', gen: this.gen, id: this.estimateId, dataset, settings });
    this.estimate = startingReport(dataset, settings, this.iter);
    this.events.changed(this);
    return true;
  }

  /** Stops the estimate under way (its results so far stay shown). */
  cancelEstimate(): void {
    if (this.estimate?.state !== 'running') return;
    this.post({ type: 'cancelEstimate', id: this.estimateId });
    this.estimate = { ...this.estimate, state: 'cancelled' };
    this.events.changed(this);
  }

  /** Asks the worker for an analysis of the lane's current model (protocol/analyses.ts), between its
   * training slices. False when there is no lane yet. */
  analyze(request: AnalysisRequest): boolean {
    if (this.gen === 0 || this.status === 'loading' || this.status === 'fatal') return false;
    this.analysisSeq += 1;
    this.analysisIds[request.kind] = this.analysisSeq;
    this.post({ type: 'analysis', gen: this.gen, id: this.analysisSeq, request });
    this.keepAnalysis(startingAnalysis(request.kind));
    this.events.changed(this);
    return true;
  }

  /** Keeps `r` as the latest report of its kind (each kind's slot holds its own kind's). */
  private keepAnalysis(r: AnalysisReport): void {
    (this.analyses as Partial<Record<AnalysisKind, AnalysisReport>>)[r.kind] = r;
  }

  /** Stops the analysis of `kind` under way. */
  cancelAnalysis(kind: AnalysisKind): void {
    const r = this.analyses[kind];
    const id = this.analysisIds[kind];
    if (r?.state !== 'running' || id === undefined) return;
    this.post({ type: 'cancelAnalysis', id });
    this.keepAnalysis({ ...r, state: 'cancelled' });
    this.events.changed(this);
  }

  /** The pool's partial sums of exact evaluation `id`: the lane makes its point and trains on. */
  exactParts(gen: number, id: number, parts: Float64Array): void {
    if (this.exact?.id !== id || this.exact.gen !== gen) return;
    this.exactWaits = { ms: this.exactWaits.ms + Math.max(0, performance.now() - this.exact.started), points: this.exactWaits.points + 1 };
    this.exact = null;
    this.post({ type: 'exactParts', gen, id, parts });
    this.events.changed(this);
  }

  /** Exact evaluation `id` will not come (cancelled, or `message` says why it failed): the lane
   * trains on without that point. */
  skipExact(gen: number, id: number, message: string | null = null): void {
    if (this.exact?.id !== id || this.exact.gen !== gen) return;
    this.post({ type: 'exactSkip', gen, id });
    this.exact = message === null ? null : { ...this.exact, state: 'failed', message };
    this.events.changed(this);
  }

  /** One update in slow motion (a running lane pauses first); its phases come back as `trace`. */
  traceStep(): boolean {
    if (this.gen === 0 || this.status === 'loading' || this.status === 'fatal' || this.status === 'failed') return false;
    this.post({ type: 'trace', gen: this.gen });
    return true;
  }

  /** Test hook: make the lane's wasm core panic. */
  crash(): void {
    this.post({ type: 'crash' });
  }

  /** Test hook: destroy a GPU lane's device (as a driver reset would). */
  loseGpu(): void {
    this.post({ type: 'loseGpu' });
  }

  /** Test hook: the lane's worker ends itself silently (as a killed worker would). */
  exitWorker(): void {
    this.post({ type: 'exit' });
  }

  /** A fresh worker with the latest configuration (after a fatal error): the lane starts again
   * at update 0 (its curve so far is cleared). */
  restart(): void {
    this.detach();
    this.dropExact();
    this.status = 'loading';
    this.message = null;
    this.gen = 0; // the new worker has no lane yet
    this.answered = 0;
    this.clear();
    this.dataLoad = null;
    this.worker = this.spawn();
    this.events.respawned?.(this);
    if (this.config) this.configure(this.config, this.dataset, this.source);
    this.events.changed(this);
  }

  /** Ends the worker. */
  dispose(): void {
    this.detach();
    this.dropExact();
  }

  /** The pending exact evaluation is of no use any more. */
  private dropExact(): void {
    if (this.exact === null) return;
    this.exact = null;
    this.events.exactStale?.(this);
  }

  private detach(): void {
    this.worker.onmessage = null;
    this.worker.onerror = null;
    this.worker.terminate();
  }

  private clear(): void {
    this.curve = emptyCurve();
    this.statCurve = emptyStatCurve();
    this.iter = 0;
    this.rate = 0;
    this.elapsed = 0;
    this.stats = {};
    this.view = null;
    this.estimate = null;
    this.brackets = [];
    this.scheduled = null;
    this.exactWaits = { ms: 0, points: 0 };
    this.analyses = {};
  }

  /** The lane continues a model file: its options become the ones it runs with (the file's
   * recorded per-lane options), so the inputs, the link and a restart follow. */
  private takeLoaded(loaded: LoadedModel): void {
    this.modelFile = { name: loaded.name, state: 'loaded', message: null };
    const config: LaneConfig = { ...(this.config ?? {}) };
    for (const key of Object.keys(this.options)) {
      if (!(key in loaded.config)) continue;
      const v = loaded.config[key];
      this.options[key] = v;
      delete this.inputErrors[key];
      if (v === null) delete config[key];
      else config[key] = v;
    }
    this.config = config;
  }

  /** Takes one message of the worker (public for the tests). */
  receive(msg: FromWorker): void {
    switch (msg.type) {
      case 'configured':
        if (msg.gen !== this.sent) return; // a newer configuration is on its way
        this.gen = msg.gen;
        this.answered = msg.gen;
        this.dataLoad = null;
        this.dropExact();
        this.clear();
        this.seed = msg.seed;
        this.every = msg.every;
        this.notice = msg.notice ?? null;
        this.gpu = msg.gpu ?? null;
        if (msg.gen === this.configureGen) this.rejection = null;
        this.trace = null;
        if (msg.loaded) this.takeLoaded(msg.loaded);
        else this.modelFile = null;
        if (msg.gen === this.configureGen) {
          this.accepted = this.config;
          this.acceptedData = { dataset: this.dataset, source: this.source };
        }
        break;
      case 'modelRefused':
        if (msg.gen !== this.sent) return;
        this.answered = msg.gen;
        this.modelFile = { name: this.modelFile?.name ?? '', state: 'refused', message: msg.message };
        break;
      case 'trace':
        if (msg.gen !== this.gen) return;
        this.trace = msg.trace;
        break;
      case 'liveRefused':
        if (msg.gen !== this.gen) return;
        // The lane keeps its value: so do the settings (a refused value is never kept).
        if (msg.key in this.liveBefore) this.setOption(msg.key, this.liveBefore[msg.key]);
        this.inputErrors[msg.key] = `${msg.message} (not applied)`;
        break;
      case 'rejected':
        if (msg.gen !== this.sent) return;
        this.answered = msg.gen;
        this.dataLoad = null;
        this.rejection = msg.error;
        if (msg.gen === this.configureGen && this.accepted) {
          // The worker keeps training on the accepted configuration and its data: so does a
          // restart.
          this.config = this.accepted;
          if (this.acceptedData) ({ dataset: this.dataset, source: this.source } = this.acceptedData);
          this.events.refused?.(this, msg.error);
        }
        // The worker keeps a lane whose `configured` reply was dropped as stale: the page's
        // curve is not that lane's, so start that lane again under a generation it takes.
        if (msg.kept !== this.gen) this.reset();
        break;
      case 'movedToCpu':
        if (msg.gen !== this.gen) return;
        this.gpu = null;
        this.notice = msg.notice;
        this.events.changed(this);
        break;
      case 'status':
        if (msg.gen !== this.gen && msg.status !== 'fatal') return;
        if (this.pauseSent !== null && msg.status !== 'running' && msg.at !== undefined) {
          this.pauseReply = msg.at - this.pauseSent;
          this.pausedAt = msg.iter ?? null;
          this.pauseSent = null;
        }
        this.status = msg.status;
        this.message = msg.message;
        break;
      case 'progress':
        if (msg.gen !== this.gen) return;
        appendPoints(this.curve, msg.points);
        if (msg.statPoints) appendStats(this.statCurve, msg.statPoints);
        this.iter = msg.iter;
        if (msg.rate > 0) this.rate = msg.rate;
        this.elapsed = msg.elapsed;
        if (msg.stats && Object.keys(msg.stats).length) this.stats = msg.stats;
        if (msg.view) this.view = msg.view;
        break;
      case 'model': {
        const waiter = this.modelWaiters.shift();
        if (waiter) waiter(msg.json);
        else this.events.model(this, msg.json, msg.iter);
        return;
      }
      case 'loading':
        if (msg.gen !== this.sent) return;
        this.dataLoad = { label: msg.label, received: msg.received, total: msg.total };
        break;
      case 'probed':
        return; // for the page's data check, not a lane
      case 'estimate':
        if (msg.scheduled) {
          if (msg.gen !== this.gen) return;
          const r = msg.report;
          if (r.state === 'done' && r.ais && r.raise) {
            this.brackets = addBracket(this.brackets, { iter: r.iter, sweeps: msg.scheduled.sweeps, ais: r.ais, raise: r.raise });
            this.scheduled = null;
          } else this.scheduled = r.state === 'cancelled' ? null : r;
          break;
        }
        // Only the latest estimate of the lane shown, and not once the user cancelled it.
        if (msg.gen !== this.gen || msg.id !== this.estimateId || this.estimate?.state !== 'running') return;
        this.estimate = msg.report;
        break;
      case 'analysis': {
        const kind = msg.report.kind;
        if (msg.gen !== this.gen || msg.id !== this.analysisIds[kind] || this.analyses[kind]?.state !== 'running') return;
        this.keepAnalysis(msg.report);
        break;
      }
      case 'exact':
        if (msg.gen !== this.gen) return;
        this.exact = {
          id: msg.id,
          gen: msg.gen,
          iter: msg.iter,
          done: 0,
          total: msg.blocks,
          started: performance.now(),
          ahead: 0,
          began: null,
          state: 'running',
          message: null,
        };
        this.events.exact?.(this, msg);
        break;
      case 'logzParts':
      case 'logzFailed':
        return; // for the evaluation pool, not a lane
      case 'trialPoints':
      case 'trialDone':
        return; // for the trial pool, not a lane
      case 'pong':
        return; // for the health check (workerHealth.ts)
      case 'wantTurn':
        this.events.turn?.(this, true, false);
        return;
      case 'turnOver':
        this.events.turn?.(this, false, msg.more);
        return;
    }
    this.events.changed(this);
  }
}
