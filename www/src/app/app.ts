// The page's controller, DOM-free: the state the URL holds (state.ts), the lane handles and
// every action of the controls. The views (controls.ts, laneCard.ts, panels/) read it and call
// its actions; it tells them when to draw again. Lanes' statuses are their workers' (lane.ts):
// the page is "running" while some lane says it runs.
//
// Data: the catalog's sets, plus the user's IDX files once a short-lived worker has checked
// them (the page never parses them). A set that needs loading (an asset such as MNIST, or a
// user's file) travels as a `DataSource` with every configuration, so each lane's worker, and a
// restarted one, loads it before building. Choosing a set of the other family (small sets vs
// images) applies that family's defaults (state.ts, DATA_DEFAULTS).
//
// Exact curves of a smaller layer above 20 units (e.g. 784×25) are computed by the page's pool
// of evaluation workers (evalPool.ts): a lane asks for each record's evaluation and waits.
//
// Studies (issue 9): with "trials per lane" set on a small data set, Start runs every lane as
// that many trials over the page's pool of trial workers (studyRun.ts), seeded as `rbm
// reproduce` seeds them; the chart draws their medians and bands, and a preset's claims are
// checked on them by the core (`evaluateClaims`). The lanes' own workers then stay at update 0
// (their cards show the starting model and refuse bad options as always). Any change of what
// the study is of (data, options, lanes, end point, trials) drops its results.

import type { Catalog, DataSetEntry, ErrorInfo, ExplorePlan, ExploreRequest, LaneBand, Verdict } from '../generated/core';
import { ASSET_LABELS, assetPath, idxDataName, sortIdxFiles, userDataEntry } from '../protocol/data';
import type { DataSource, FromWorker } from '../protocol/messages';
import { type OptionValue, optionSpec, parseOption } from '../protocol/schema';
import { EvalPool, type EvalTicket } from '../workers/evalPool';
import { trialWorkers } from '../workers/trialPool';
import type { Axis } from './chartData';
import { bracketBands } from './claims';
import { NO_VIEW, type ViewFlags } from './classroom';
import type { ExplorerRun, JudgeCell } from './explorerRun';
import { type ExactRequest, type LaneEvents, LaneHandle, type WorkerFactory, type WorkerLike } from './lane';
import { parsePatterns, patternsEntry, patternsText, textDataUrl } from './patterns';
import { measuredByStudy, presetPlan, studyMeasure } from './presets';
import { batchRows, type StopUnit, stopInUpdates, stuckAtStop, updatesPerEpoch } from './progress';
import { isLive, longRuns, wipeQuestion } from './rebuild';
import {
  type Compute,
  cloneState,
  computeOn,
  DATA_DEFAULTS,
  type DataDefaults,
  dataFamily,
  firstScreen,
  IMAGES_BATCH,
  type LaneState,
  laneConfig,
  MAX_STOP,
  MAX_TRIALS,
  NEW_LANE_OPTIONS,
  newLaneState,
  type PageState,
  type Scale,
  trialsRefusal,
} from './state';
import { curveCsv, runCsv, runJson, studyCsv, studyJson } from './study';
import { StudyRun } from './studyRun';
import { LaneTurns } from './turns';

export interface AppEvents {
  /** Something shown changed: draw again (soon). */
  changed(): void;
  /** A file to hand to the user. */
  download(name: string, text: string): void;
}

/** What the page provides around the controller (injectable for the unit tests). */
export interface AppOptions {
  /** The absolute URL a worker fetches an asset from (resolved against the page's address). */
  assetUrl(asset: string): string;
  /** Frees a URL the page made for a user's file (`blob:`), once nothing needs it any more. */
  release(url: string): void;
  /** Workers of the exact-evaluation pool (evalPool.ts, poolSize). */
  evalWorkers: number;
  /** Workers of a study's trial pool (trialPool.ts, trialWorkers). */
  trialWorkers: number;
  /** Lanes that compute at once; more take turns (turns.ts, lanesAtOnce); default: all. */
  lanesAtOnce: number;
  /** Makes the workers that run for long, the lanes', a study's trials' and the evaluation pool's (e.g. watched by
   * workerHealth.ts, so that one that dies without a word is found); none: the app's factory. */
  watchedWorkers?: WorkerFactory;
  /** Asks the user a yes/no question (before an edit wipes a long run); default: yes. */
  confirm(question: string): boolean;
  /** The core's verdicts on a preset's claims (wasm `evaluateClaims`); none: not checked. */
  evaluateClaims?: (preset: string, lr: number, bands: LaneBand[], end: number, bound: number | null) => Verdict[];
  /** The core's claims explorer (wasm `explorePlan`, `exploreJudge`); none: the page runs no grid. */
  explorer?: ExplorerCore;
}

/** The core's claims explorer as the page calls it (crates/wasm/src/explore.rs). */
export interface ExplorerCore {
  plan(preset: string, request: ExploreRequest, workers: number): ExplorePlan;
  judge: JudgeCell;
}

/** What the claims explorer's panel runs a grid with (explorerRun.ts). */
export interface ExplorerEnv {
  core: ExplorerCore;
  /** Makes trial workers (watched, as a study's). */
  factory: WorkerFactory;
  /** Trial workers at once. */
  workers: number;
  /** Something shown changed: draw again. */
  changed(): void;
}

/** A file the user chose or dropped: its name, size and a URL a worker can fetch it from. */
export interface UserFile {
  name: string;
  size: number;
  url: string;
}

export class App {
  data = '';
  shared: Record<string, OptionValue> = {};
  /** The lane panels' exact-view options (scope `view`), by key. */
  views: Record<string, OptionValue> = {};
  axis: Axis = 'iter';
  stop: number | null = null;
  stopUnit: StopUnit = 'updates';
  preset: string | null = null;
  rate = 0;
  /** Trials per lane (a study), or null: single live runs. */
  trials: number | null = null;
  /** Whether a study's chart draws the q2.5–q97.5 band too. */
  wide = false;
  /** Where live lanes compute (PageState.compute). */
  compute: Compute = 'auto';
  /** The browser's WebGPU adapter, once found (null: none, or not yet known). */
  gpuAdapter: string | null = null;
  /** The preset's scale (PageState.scale). */
  scale: Scale = 'page';
  /** Test hook: a study's AIS with these particles and β instead of the preset's. */
  studyAisForTest: { particles: number; betas: number } | null = null;
  /** Whether a GPU study measured by AIS anneals its checkpoints in batches on the study's AIS
   * worker (studyAis.ts); false (a test hook): each trial anneals its own, with the same numbers. */
  studyAisBatch = true;
  /** Whether a GPU study of small data runs the trials of the lanes one GPU job takes together
   * (studyJob.ts); false (a test hook): each trial on its own GPU lane, as before. */
  studyJobs = true;
  /** The study under way or finished (null: none yet). */
  study: StudyRun | null = null;
  /** Why the study cannot start, when Start was pressed (null: nothing to say). */
  studyMessage: string | null = null;
  /** The page's own claims-explorer grid, under way or finished (explorerPanel.ts; null: none). */
  explorer: ExplorerRun | null = null;
  /** Why Start moved nothing, when it was pressed (every lane at "stop at"; null: it did). */
  runMessage: string | null = null;
  private verdictCache: { version: number; key: string; verdicts: Verdict[] } | null = null;
  lanes: LaneHandle[] = [];
  /** Messages for settings inputs whose text the page could not read ('data', 'stop' or a shared key). */
  settingErrors: Record<string, string> = {};
  /** Notices about the page's link (values it ignored). */
  notices: string[] = [];
  /** The preset's lanes this core cannot run. */
  missing: { label: string; algo: string }[] = [];
  /** Every data set the picker offers: the catalog's, then the user's files. */
  dataSets: DataSetEntry[];
  /** How the page is shown (classroom.ts): the parts a link hides, the embed layout, the tour.
   * Not part of the experiment: loading another state (a preset, a tour's step) keeps it. */
  view: ViewFlags = { ...NO_VIEW };
  /** The file being checked before it is offered (null: none). */
  checking: string | null = null;
  /** The page's state before it switched to a data set not every lane trains on yet (null:
   * every lane does): where a lane's refusal of the new data takes the page back to. */
  private beforeData: PageState | null = null;
  private readonly laneEvents: LaneEvents;
  private readonly options: AppOptions;
  /** Where each of the user's data sets comes from, by name. */
  private readonly userSources = new Map<string, DataSource>();
  private probes = 0;
  private cancelProbe: (() => void) | null = null;
  /** The exact-evaluation pool, made when a lane first needs it. */
  private pool: EvalPool | null = null;
  /** Each waiting lane's hold on its evaluation. */
  private readonly tickets = new Map<LaneHandle, EvalTicket>();
  /** The lanes' turns when there are more than compute at once (turns.ts). */
  readonly turns: LaneTurns<LaneHandle>;

  constructor(
    readonly catalog: Catalog,
    private readonly factory: WorkerFactory,
    private readonly events: AppEvents,
    options: Partial<AppOptions> = {},
  ) {
    this.options = {
      assetUrl: assetPath,
      release: () => undefined,
      confirm: () => true,
      evalWorkers: 2,
      trialWorkers: trialWorkers(2),
      lanesAtOnce: Number.POSITIVE_INFINITY, // the page passes lanesAtOnce(cores)
      ...options,
    };
    this.turns = new LaneTurns<LaneHandle>(this.options.lanesAtOnce, { gate: (lane, on) => lane.gate(on), grant: (lane) => lane.grant() });
    this.dataSets = [...catalog.data_sets];
    this.laneEvents = {
      changed: () => {
        this.settleData();
        this.events.changed();
      },
      model: (lane, json, iter) => this.events.download(`rbm-${lane.algo}-seed${lane.seed}-update${iter}.json`, json),
      exact: (lane, request) => this.evaluate(lane, request),
      exactStale: (lane) => this.dropTicket(lane),
      refused: (lane, error) => (lane.latestData === this.data ? this.keepUsed(lane, error.key) : this.keepData(lane, error)),
      turn: (lane, want, more) => (want ? this.turns.want(lane) : this.turns.over(lane, more)),
      respawned: (lane) => this.turns.replaced(lane),
    };
  }

  /** The number of workers the exact-evaluation pool has or will have. */
  get evalWorkers(): number {
    return this.options.evalWorkers;
  }

  /** A lane's record waits for its exact evaluation: the pool enumerates, the lane merges. */
  private evaluate(lane: LaneHandle, req: ExactRequest): void {
    this.dropTicket(lane);
    // Watched like the lanes' workers: one that goes silent fails its chunk's evaluation.
    this.pool ??= new EvalPool(this.options.watchedWorkers ?? this.factory, this.options.evalWorkers);
    const ticket = this.pool.submit(req.model, req.blocks, {
      progress: (done, total, ahead) => {
        if (lane.exact?.id !== req.id || lane.exact.gen !== req.gen) return;
        lane.exact.done = done;
        lane.exact.total = total;
        lane.exact.ahead = ahead;
        if (ahead === 0 && lane.exact.began === null) lane.exact.began = performance.now();
        this.events.changed();
      },
      done: (parts) => {
        this.tickets.delete(lane);
        lane.exactParts(req.gen, req.id, parts);
      },
      failed: (message) => {
        this.tickets.delete(lane);
        lane.skipExact(req.gen, req.id, `the exact evaluation of update ${req.iter} failed: ${message}`);
      },
    });
    if (lane.exact?.id === req.id && lane.exact.gen === req.gen) this.tickets.set(lane, ticket);
  }

  private dropTicket(lane: LaneHandle): void {
    this.tickets.get(lane)?.cancel();
    this.tickets.delete(lane);
  }

  /** The user cancelled a lane's exact evaluation: the lane trains on without that point. */
  cancelExact(lane: LaneHandle): void {
    const job = lane.exact;
    if (job?.state !== 'running') return;
    this.dropTicket(lane);
    lane.skipExact(job.gen, job.id);
  }

  /** The page's state (what the URL holds). */
  state(): PageState {
    return cloneState({
      data: this.data,
      shared: this.shared,
      lanes: this.lanes.map((l) => ({ id: l.id, algo: l.algo, label: l.label, options: l.options, ...(l.aisEvery !== null ? { aisEvery: l.aisEvery } : {}) })),
      axis: this.axis,
      stop: this.stop,
      stopUnit: this.stopUnit,
      preset: this.preset,
      rate: this.rate,
      // No trials on data the page runs none on (MNIST): the link stays clean.
      trials: this.trialsRefused() ? null : this.trials,
      wide: this.wide,
      views: this.views,
      compute: this.compute,
      scale: this.scale,
    });
  }

  /** The catalog with the user's data sets too (what a link may name while they are loaded). */
  linkCatalog(): Catalog {
    return { ...this.catalog, data_sets: this.dataSets };
  }

  /** Replaces everything by `state`: every lane gets a new worker. */
  load(state: PageState): void {
    this.dropStudy();
    for (const lane of this.lanes) {
      lane.dispose();
      this.turns.remove(lane);
    }
    const s = cloneState(state);
    this.data = s.data;
    this.shared = s.shared;
    this.axis = s.axis;
    this.stop = s.stop;
    this.stopUnit = s.stopUnit;
    this.preset = s.preset;
    this.rate = s.rate;
    this.trials = s.trials;
    this.wide = s.wide;
    this.views = s.views;
    this.compute = s.compute;
    this.scale = s.scale;
    this.settingErrors = {};
    this.beforeData = null;
    const preset = this.catalog.presets.find((p) => p.name === s.preset);
    this.missing = (preset?.lanes ?? []).filter((l) => !this.catalog.algorithms.some((a) => a.name === l.algo)).map((l) => ({ label: l.label, algo: l.algo }));
    this.lanes = [];
    for (const l of s.lanes) this.spawn(l);
    this.events.changed();
  }

  dataset(): DataSetEntry | undefined {
    return this.dataSets.find((d) => d.name === this.data);
  }

  /** Where a worker loads data set `name` from (null: the core builds it in). */
  source(name: string): DataSource | null {
    const ds = this.dataSets.find((d) => d.name === name);
    if (ds?.asset) {
      const label = ASSET_LABELS[ds.asset] ?? `the data asset '${ds.asset}'`;
      return { key: `asset:${ds.asset}`, kind: 'asset', name: ds.asset, label, files: [{ url: this.options.assetUrl(ds.asset), what: label }] };
    }
    return this.userSources.get(name) ?? null;
  }

  /** Training rows per update of a lane (its batch size, or the whole data set). */
  batchOf(lane: Pick<LaneState, 'options'>): number {
    return batchRows(lane.options.batch, this.dataset()?.rows ?? 1);
  }

  /** A lane's end point in updates (the end point may be given in epochs), or null. */
  untilOf(lane: Pick<LaneState, 'options'>): number | null {
    return stopInUpdates(this.stop, this.stopUnit, this.batchOf(lane), this.dataset()?.rows ?? 1);
  }

  running(): boolean {
    return this.study?.status === 'running' || this.lanes.some((l) => l.status === 'running');
  }

  private spawn(state: PageState['lanes'][number]): LaneHandle {
    const lane = new LaneHandle(state, this.options.watchedWorkers ?? this.factory, this.laneEvents);
    this.lanes.push(lane);
    this.turns.add(lane);
    lane.limit(this.untilOf(lane));
    this.configure(lane);
    return lane;
  }

  private configure(lane: LaneHandle): void {
    this.dropStudy();
    lane.configure(laneConfig(this.shared, lane), this.data, this.source(this.data), this.computeOn() === 'gpu' ? 'gpu' : undefined);
  }

  private untils(): Map<LaneHandle, number | null> {
    return new Map(this.lanes.map((l) => [l, this.untilOf(l)]));
  }

  /**
   * After a change of the end point, its unit, the data or a batch size: every lane learns its
   * new end in updates, and a lane whose η decayed to 0 at its old end (`lr_decay_iters`) now
   * decays to the new one (to none, constant η, when the end point is removed). Such a lane
   * starts again: its schedule is a new one. Returns the lanes whose options changed.
   */
  private follow(prev: Map<LaneHandle, number | null>): LaneHandle[] {
    const changed: LaneHandle[] = [];
    for (const lane of this.lanes) {
      const next = this.untilOf(lane);
      const old = prev.get(lane) ?? null;
      if (next === old) continue;
      lane.limit(next);
      // Without an end point, a decay that followed it would leave η at 0 from there on.
      if (old !== null && lane.options.lr_decay_iters === old) {
        lane.options.lr_decay_iters = next;
        changed.push(lane);
      }
    }
    return changed;
  }

  /** A lane's options as the data set's family wants them (state.ts, DATA_DEFAULTS). */
  private laneDefaults(lane: LaneState, d: DataDefaults, ds: DataSetEntry): void {
    for (const [key, v] of Object.entries(d.lane(ds))) if (key in lane.options) lane.options[key] = v;
    if ('lr_decay_iters' in lane.options) lane.options.lr_decay_iters = d.decayToEnd ? this.untilOf(lane) : null;
  }

  /** The settings the data set's family wants, for the page and every lane. */
  private applyDefaults(ds: DataSetEntry): void {
    const d = DATA_DEFAULTS[dataFamily(ds)];
    for (const [key, v] of Object.entries(d.shared(ds))) {
      if (!(key in this.shared)) continue;
      this.shared[key] = v;
      delete this.settingErrors[key];
    }
    this.stop = d.stop;
    this.stopUnit = d.stopUnit;
    delete this.settingErrors.stop;
    for (const lane of this.lanes) {
      this.laneDefaults(lane, d, ds);
      for (const key of [...Object.keys(d.lane(ds)), 'lr_decay_iters']) delete lane.inputErrors[key];
      lane.limit(this.untilOf(lane));
    }
    // The paper's experiment was on the other data.
    this.preset = null;
    this.rate = 0;
    this.missing = [];
  }

  private configureAll(): void {
    for (const lane of this.lanes) this.configure(lane);
    this.events.changed();
  }

  // ---- run controls ------------------------------------------------------------------------

  start(): void {
    if (this.studyMode()) {
      this.startStudy();
      return;
    }
    this.runMessage = stuckAtStop(this.lanes.map((l) => ({ iter: l.iter, until: l.limitAt })));
    for (const lane of this.lanes) lane.start();
    this.events.changed();
  }

  pause(): void {
    this.study?.pause();
    for (const lane of this.lanes) lane.pause();
  }

  toggle(): void {
    if (this.running()) this.pause();
    else this.start();
  }

  /** Every lane back to update 0, paused (same seed: the same curves again); a study's
   * results are dropped. */
  reset(): void {
    this.runMessage = null;
    this.dropStudy();
    for (const lane of this.lanes) {
      lane.pause();
      lane.reset();
    }
  }

  /** A fresh worker for a lane whose worker broke, with the same configuration. */
  restart(lane: LaneHandle): void {
    lane.restart();
  }

  exportModel(lane: LaneHandle): void {
    lane.exportModel();
  }

  /** The lane's name: the paper's label when a preset (or a link) gave one, else the algorithm's title. */
  laneTitle(lane: Pick<LaneHandle, 'label' | 'algo'>): string {
    return lane.label ?? this.catalog.algorithms.find((a) => a.name === lane.algo)?.title ?? lane.algo;
  }

  /** Downloads a live lane's curve as CSV (study.ts curveCsv), from the page's own copy: it
   * works after the lane's worker died too. `url` is the page's address. */
  exportCurve(lane: LaneHandle, url: string): void {
    const label = this.laneTitle(lane);
    const name = `rbm-${lane.algo}-seed${lane.seed || 'none'}-lane${lane.id}-curve.csv`;
    this.events.download(name, curveCsv({ id: lane.id, label, status: lane.status, curve: lane.curve }, url));
  }

  /** Whether `what` may wipe `lanes`' runs and the study: yes for short runs and no study under
   * way, else the user says (rebuild.ts). */
  mayWipe(what: string, lanes: LaneHandle[]): boolean {
    const q = wipeQuestion(what, longRuns(lanes)) ?? this.studyQuestion(what);
    return q === null || this.options.confirm(q);
  }

  /** The question before `what` discards a study under way (some trial has a record past update
   * 0 and not every trial has ended); null: nothing to ask (issue 27: an edit of η silently
   * dropped a classroom's 75 trials). */
  studyQuestion(what: string): string | null {
    const run = this.study;
    if (!run || run.status === 'done') return null;
    const p = run.study.progress(1);
    if (p.fraction <= 0 && p.done === 0) return null;
    const running = p.running ? `, ${p.running} running` : '';
    return `${what} discards the study under way (${p.done} of ${p.total} trials done${running}, ${Math.floor(100 * p.fraction)}%): its trials start again from update 0 on the next Start. Continue?`;
  }

  /** Whether `what` may discard the study under way: yes when there is none, else the user says. */
  mayDropStudy(what: string): boolean {
    const q = this.studyQuestion(what);
    return q === null || this.options.confirm(q);
  }

  // ---- settings ----------------------------------------------------------------------------

  /** A shared option's input changed. False when the user declined to wipe the runs it rebuilds
   * (the input then shows the value in use again). */
  setShared(key: string, text: string): boolean {
    const spec = optionSpec(this.catalog, key);
    if (!spec) return true;
    const p = parseOption(spec, text);
    if (!p.ok) {
      this.settingErrors[key] = p.message;
      this.events.changed();
      return true;
    }
    if (p.value !== this.shared[key] && !this.mayWipe(`Changing ${spec.label}`, this.lanes)) return false;
    delete this.settingErrors[key];
    this.shared[key] = p.value;
    this.configureAll();
    return true;
  }

  /** A lane panel's view option changed (one value for the page; no lane is rebuilt). */
  setView(key: string, text: string): void {
    const spec = optionSpec(this.catalog, key);
    if (spec?.scope !== 'view') return;
    const p = parseOption(spec, text);
    if (p.ok) delete this.settingErrors[key];
    else this.settingErrors[key] = p.message;
    if (p.ok) this.views[key] = p.value;
    this.events.changed();
  }

  /**
   * Every lane trains on data set `name` (its worker loads it first if it must). From a set of
   * the other family, the page takes that family's defaults; within the images, "evaluate
   * every" keeps meaning once per epoch.
   */
  setData(name: string): void {
    const ds = this.dataSets.find((d) => d.name === name);
    if (!ds) return;
    if (name !== this.data && !this.mayDropStudy('Changing the data set')) {
      this.reverted.add('data');
      this.events.changed();
      return;
    }
    const old = this.dataset();
    const prev = this.untils();
    if (name !== this.data) this.beforeData ??= this.state();
    this.data = name;
    delete this.settingErrors.data;
    if (!old || dataFamily(old) !== dataFamily(ds)) {
      this.applyDefaults(ds);
    } else {
      const batch = this.lanes.length ? batchRows(this.lanes[0].options.batch, old.rows) : IMAGES_BATCH;
      if (dataFamily(ds) === 'images' && this.shared.every === updatesPerEpoch(old.rows, batch)) this.shared.every = updatesPerEpoch(ds.rows, batch);
      this.follow(prev);
    }
    this.configureAll();
  }

  /** The end point changed: the lanes learn where to stop (and a decay to it follows it). False
   * when the user declined to discard the study under way. */
  setStop(text: string): boolean {
    const t = text.trim();
    const n = Number(t);
    if (t !== '' && !(/^\d+$/.test(t) && n >= 1 && n <= MAX_STOP)) {
      this.settingErrors.stop = `stop at must be a whole number from 1 to ${MAX_STOP} (${this.stopUnit}), or empty to run on, got '${t}'`;
      this.events.changed();
      return true;
    }
    if ((t === '' ? null : n) !== this.stop && !this.mayDropStudy('Changing "stop at"')) return false;
    delete this.settingErrors.stop;
    this.runMessage = null;
    const prev = this.untils();
    this.stop = t === '' ? null : n;
    this.dropStudy();
    for (const lane of this.follow(prev)) this.configure(lane);
    this.events.changed();
    return true;
  }

  /** The end point's unit changed (the number stays: "10 updates" becomes "10 epochs"). */
  setStopUnit(unit: StopUnit): void {
    if (unit !== 'updates' && unit !== 'epochs') return;
    if (unit !== this.stopUnit && !this.mayDropStudy("Changing the end point's unit")) {
      this.events.changed();
      return;
    }
    const prev = this.untils();
    this.stopUnit = unit;
    this.dropStudy();
    for (const lane of this.follow(prev)) this.configure(lane);
    this.events.changed();
  }

  // ---- the user's data ----------------------------------------------------------------------

  /**
   * The user chose or dropped IDX files (images, optional labels; either may be gzipped): a
   * short-lived worker checks them with the core's own reader; a good file joins the picker
   * under its name and every lane trains on it, a bad one leaves everything as it was with one
   * message under the data input. Resolves to whether the file was taken.
   */
  addFiles(files: UserFile[]): Promise<boolean> {
    const sorted = sortIdxFiles(files);
    this.cancelProbe?.();
    if (!sorted.ok) {
      for (const f of files) this.options.release(f.url);
      this.settingErrors.data = sorted.message;
      this.events.changed();
      return Promise.resolve(false);
    }
    const { images, labels } = sorted;
    const id = ++this.probes;
    const name = idxDataName(
      images.name,
      this.catalog.data_sets.map((d) => d.name),
    );
    const source: DataSource = {
      key: `idx:${id}:${name}`,
      kind: 'idx',
      name,
      label: `'${images.name}'`,
      files: [{ url: images.url, what: `'${images.name}'` }, ...(labels ? [{ url: labels.url, what: `the labels file '${labels.name}'` }] : [])],
    };
    const urls = source.files.map((f) => f.url);
    delete this.settingErrors.data;
    this.checking = images.name;
    const worker: WorkerLike = this.factory('data check');
    const result = new Promise<boolean>((resolve) => {
      const finish = (ok: boolean, message: string | null) => {
        worker.onmessage = null;
        worker.onerror = null;
        worker.terminate();
        this.cancelProbe = null;
        this.checking = null;
        if (!ok) {
          for (const url of urls) this.options.release(url);
          if (message !== null) this.settingErrors.data = message;
        }
        resolve(ok);
        this.events.changed();
      };
      this.cancelProbe = () => finish(false, null);
      worker.onmessage = (e: MessageEvent<FromWorker>) => {
        const msg = e.data;
        if (msg.type === 'probed' && msg.id === id) {
          const set = msg.sets[0];
          if (msg.error || !set) {
            finish(false, msg.error?.message ?? `'${images.name}' holds no data set`);
            return;
          }
          finish(true, null);
          this.addUserData(userDataEntry(set, images.name), source);
        } else if (msg.type === 'status' && msg.status === 'fatal') {
          finish(false, `could not check '${images.name}': ${msg.message ?? 'the worker failed'}`);
        }
      };
      worker.onerror = (e: ErrorEvent) => {
        e.preventDefault?.();
        finish(false, `could not check '${images.name}': ${e.message || 'the worker failed'}`);
      };
    });
    worker.postMessage({ type: 'probe', id, source });
    this.events.changed();
    return result;
  }

  /**
   * The student's own patterns (drawn or pasted 0/1 lines) as data set `name`: checked with the
   * core's rules, they join the picker as a small set (exact curve, model distribution) and
   * every lane trains on them; each lane's worker loads them from a `data:` URL. Returns the
   * refusal's message, or null.
   */
  addPatterns(name: string, text: string): string | null {
    const p = parsePatterns(text);
    if (!p.ok) return p.message;
    const base = name.trim().slice(0, 60) || 'my-patterns';
    const dsName = this.catalog.data_sets.some((d) => d.name === base) ? `${base} (drawn)` : base;
    const id = ++this.probes;
    const source: DataSource = {
      key: `patterns:${id}:${dsName}`,
      kind: 'patterns',
      name: dsName,
      label: 'your patterns',
      files: [{ url: textDataUrl(patternsText(p.rows)), what: 'your patterns' }],
    };
    delete this.settingErrors.data;
    this.addUserData(patternsEntry(dsName, p.rows), source);
    return null;
  }

  /** A checked user's data set joins the picker (replacing one of its name) and is chosen. */
  private addUserData(entry: DataSetEntry, source: DataSource): void {
    const old = this.userSources.get(entry.name);
    this.dataSets = [...this.dataSets.filter((d) => d.name !== entry.name), entry];
    this.userSources.set(entry.name, source);
    this.setData(entry.name);
    if (old) for (const f of old.files) this.options.release(f.url);
  }

  setAxis(axis: Axis): void {
    this.axis = axis;
    this.events.changed();
  }

  /** Settings whose input must show the value in use again (the core refused the text). */
  readonly reverted = new Set<string>();

  /** The core refused option `key` of `lane`'s latest configuration: the input goes back to
   * the value the lane still trains with (the refusal stays under it), and lanes sent the
   * refused shared value go back to it too. */
  private keepUsed(lane: LaneHandle, key: string | null): void {
    const used = lane.accepted;
    if (key === null || used === null) return;
    const value = used[key] ?? null;
    if (key in lane.options) {
      lane.options[key] = value;
      lane.reverted.add(key);
    } else if (key in this.shared) {
      this.reverted.add(key);
      if (this.shared[key] === value) return;
      this.shared[key] = value;
      for (const l of this.lanes) if (l !== lane && l.latest && (l.latest[key] ?? null) !== value) this.configure(l);
    }
  }

  /** Every lane trains on the page's data set: no way back is needed any more. */
  private settleData(): void {
    if (this.beforeData && this.lanes.every((l) => l.trainsOn === this.data)) this.beforeData = null;
  }

  /**
   * `lane` refused the data set the page switched to and trains on its old one: the page goes
   * back to that data set with the settings it had then (the switch brought the new set's
   * defaults), every other lane with it, and the refusal stays under the data input. A refused
   * value never stays on screen.
   */
  private keepData(lane: LaneHandle, error: ErrorInfo): void {
    const refused = this.data;
    const before = this.beforeData;
    this.beforeData = null;
    this.data = lane.latestData;
    if (before?.data === this.data) {
      this.shared = { ...before.shared };
      this.stop = before.stop;
      this.stopUnit = before.stopUnit;
      for (const l of this.lanes) {
        const was = before.lanes.find((s) => s.id === l.id);
        if (was) l.options = { ...was.options };
        l.limit(this.untilOf(l));
      }
    }
    for (const l of this.lanes) if (l !== lane && l.latestData !== this.data) this.configure(l);
    this.settingErrors.data = `The data set '${refused}' was refused, so the lanes stay on '${this.data}': ${error.message}`;
    // The picker shows what the user chose until it is told otherwise, even if no frame was
    // drawn between the choice and its refusal.
    this.reverted.add('data');
  }

  /** The message under a settings input: the page's own, else a lane's refusal of that key. */
  settingError(key: string): string {
    if (this.settingErrors[key]) return this.settingErrors[key];
    const refusal = this.lanes.map((l) => l.rejection).find((r) => r?.key === key);
    return refusal ? `${refusal.message} (not applied)` : '';
  }

  // ---- lanes -------------------------------------------------------------------------------

  addLane(algo: string): LaneHandle | null {
    if (!this.catalog.algorithms.some((a) => a.name === algo)) return null;
    if (!this.mayDropStudy('Adding a lane')) return null;
    const id = Math.max(-1, ...this.lanes.map((l) => l.id)) + 1;
    const race = this.running();
    // A new lane takes the current data's defaults (e.g. mini-batches on MNIST).
    const ds = this.dataset();
    const d = ds ? DATA_DEFAULTS[dataFamily(ds)] : null;
    const state = newLaneState(this.catalog, id, algo, { ...NEW_LANE_OPTIONS, ...(ds && d ? d.lane(ds) : {}) });
    if (ds && d) this.laneDefaults(state, d, ds);
    const lane = this.spawn(state);
    if (race && !this.studyMode()) lane.start();
    this.events.changed();
    return lane;
  }

  removeLane(lane: LaneHandle): void {
    if (!this.mayDropStudy(`Removing lane ${lane.id}`)) return;
    this.dropStudy();
    lane.dispose();
    this.turns.remove(lane);
    this.lanes = this.lanes.filter((l) => l !== lane);
    this.events.changed();
  }

  /**
   * A lane option's input changed. A live option (the schema's `live`: η, its decay, weight
   * decay, momentum) reaches the built lane at its next update, keeping its curve; any other
   * rebuilds it, after asking when that wipes a long run. False when the user declined (the
   * input then shows the value in use again).
   */
  setLaneOption(lane: LaneHandle, key: string, text: string): boolean {
    const spec = optionSpec(this.catalog, key);
    if (!spec || !(key in lane.options)) return true;
    const p = parseOption(spec, text);
    if (!p.ok) {
      lane.inputErrors[key] = p.message;
      this.events.changed();
      return true;
    }
    if (p.value === lane.options[key] && !lane.inputErrors[key]) return true;
    if (isLive(spec) && lane.built) {
      if (!this.mayDropStudy(`Changing ${spec.label}`)) return false;
      delete lane.inputErrors[key];
      this.dropStudy();
      lane.setLive(key, p.value);
      this.events.changed();
      return true;
    }
    if (!this.mayWipe(`Changing ${spec.label}`, [lane])) return false;
    delete lane.inputErrors[key];
    const prev = this.untils();
    lane.options[key] = p.value;
    // A new batch size moves an end point given in epochs.
    this.follow(prev);
    this.configure(lane);
    this.events.changed();
    return true;
  }

  /** The message under a lane's option input: the page's own, else the core's refusal. */
  laneInputError(lane: LaneHandle, key: string): string {
    if (lane.inputErrors[key]) return lane.inputErrors[key];
    return lane.rejection?.key === key && key in lane.options ? `${lane.rejection.message} (not applied)` : '';
  }

  /** A refusal of the core that names no input of the page (shown on the lane itself). */
  laneRejection(lane: LaneHandle): string | null {
    const r = lane.rejection;
    if (!r) return null;
    if (r.key && (r.key in lane.options || r.key === 'data' || r.key in this.shared)) return null;
    return r.message;
  }

  // ---- studies -----------------------------------------------------------------------------

  /** Whether Start runs a study: trials per lane are set and the data is a small set (each
   * trial computes its own exact curve), or MNIST under a preset measured on its evaluation set
   * (each trial measures its checkpoints by AIS or exactly, as `rbm reproduce` does). */
  studyMode(): boolean {
    const ds = this.dataset();
    return this.trials !== null && ds !== undefined && (dataFamily(ds) === 'small' || this.studyMeasure() !== null);
  }

  /** The preset the page is set up as, while its data is the preset's. */
  private currentPreset() {
    const p = this.catalog.presets.find((x) => x.name === this.preset);
    return p && p.data === this.data ? p : undefined;
  }

  /** The study's own measure at each checkpoint: AIS or the exact ATLL of the preset's
   * evaluation set, for an MNIST preset on its own data (null: the lanes' exact curves). */
  studyMeasure() {
    const p = this.currentPreset();
    const m = p && measuredByStudy(p) ? studyMeasure(p, this.scale) : null;
    return m && !('exact' in m) && this.studyAisForTest ? { ...m, ...this.studyAisForTest } : m;
  }

  /** Why the page runs no trials on its data (trialsRefusal), null where it does. */
  trialsRefused(): string | null {
    return trialsRefusal(this.dataset(), measuredByStudy(this.currentPreset()));
  }

  /** Where a study's trials train: the lanes' place under Compute (UCD goes to the CPU in its
   * workers, saying so). */
  studyOn(): 'cpu' | 'gpu' {
    return this.computeOn();
  }

  /** Why a study of the current page cannot run (null: it can). */
  studyProblem(): string | null {
    if (!this.lanes.length) return 'Add a lane to run trials.';
    const seed = this.shared.seed;
    if (typeof seed !== 'number') return "Trials need a seed (each trial's seed is derived from it, as `rbm reproduce` derives them): set one.";
    const untils = new Set(this.lanes.map((l) => this.untilOf(l)));
    if (untils.has(null)) return 'Trials need an end point: set "stop at".';
    if (untils.size > 1) return 'Trials need one end point for every lane in updates: give "stop at" in updates.';
    const refused = this.lanes.find((l) => l.rejection !== null || Object.keys(l.inputErrors).length > 0);
    if (refused) return `The settings of lane ${refused.id} are refused: fix them to run trials.`;
    const every = typeof this.shared.every === 'number' ? this.shared.every : 1;
    const until = [...untils][0] as number;
    if (this.studyOn() === 'gpu' && until % every !== 0)
      return `Trials on the GPU need an end point that is a multiple of the evaluation interval (${every} updates; a GPU lane records only there): set "stop at" to ${Math.max(every, Math.round(until / every) * every)}.`;
    return null;
  }

  /** Starts (or resumes) the study, making it first if there is none. */
  private startStudy(): void {
    const problem = this.studyProblem();
    this.studyMessage = problem;
    if (problem) {
      this.events.changed();
      return;
    }
    if (!this.study) {
      const lanes = [...this.lanes];
      const seed = this.shared.seed as number;
      const until = this.untilOf(lanes[0]) as number;
      const every = typeof this.shared.every === 'number' ? this.shared.every : 1;
      const preset = this.catalog.presets.find((p) => p.name === this.preset);
      const plan = {
        lanes: lanes.map((l) => ({
          id: l.id,
          label: this.laneTitle(l),
          claimLabel: preset && l.label !== null && preset.lanes.some((p) => p.label === l.label) ? l.label : null,
          stats: this.catalog.algorithms.find((a) => a.name === l.algo)?.stats ?? [],
        })),
        runs: this.trials ?? 1,
        until,
        every,
        seed,
      };
      const data = this.data;
      const source = this.source(data);
      const measure = this.studyMeasure();
      // A lane measured by the study keeps no exact curve of its own (the CLI's Study::lane_config).
      const configs = lanes.map((l) => (measure ? { ...laneConfig(this.shared, l), exact_bits: 0 } : laneConfig(this.shared, l)));
      const compute = this.studyOn() === 'gpu' ? ('gpu' as const) : undefined;
      this.study = new StudyRun(
        plan,
        (t) => ({ config: configs[t.lane], dataset: data, source, seed, until, ...(compute ? { compute } : {}), ...(measure ? { measure } : {}) }),
        this.options.watchedWorkers ?? this.factory,
        this.options.trialWorkers,
        () => this.events.changed(),
        undefined,
        compute === 'gpu' && measure !== null && !('exact' in measure) && this.studyAisBatch,
        // A GPU study of small data: the lanes one GPU job runs train together (issue 30).
        compute === 'gpu' && measure === null && this.studyJobs ? { dataset: data, source, seed, until, every, configs } : null,
      );
    }
    this.study.start();
  }

  /** Ends the study's workers and forgets its results. */
  private dropStudy(): void {
    if (!this.study) return;
    this.study.dispose();
    this.study = null;
    this.verdictCache = null;
    this.events.changed();
  }

  /** Trials per lane: a whole number from 1 to MAX_TRIALS, or empty for single live runs. False
   * when the user declined to discard the study under way. */
  setTrials(text: string): boolean {
    const t = text.trim();
    const n = Number(t);
    if (t !== '' && !(/^\d+$/.test(t) && n >= 1 && n <= MAX_TRIALS)) {
      this.settingErrors.trials = `trials per lane must be a whole number from 1 to ${MAX_TRIALS}, or empty for one live run per lane, got '${t}'`;
      this.events.changed();
      return true;
    }
    const refused = t === '' ? null : this.trialsRefused();
    if (refused) {
      this.settingErrors.trials = refused;
      this.trials = null;
      this.events.changed();
      return true;
    }
    if ((t === '' ? null : n) !== this.trials && !this.mayDropStudy('Changing trials per lane')) return false;
    delete this.settingErrors.trials;
    this.dropStudy();
    this.studyMessage = null;
    this.trials = t === '' ? null : n;
    this.events.changed();
    return true;
  }

  /** Downloads every trial's curve and statistics (CSV or JSON), with the page's address in
   * the file (how it was made). `url` is the page's address. */
  exportStudy(kind: 'csv' | 'json', url: string): void {
    const run = this.study;
    if (!run) return;
    const name = `rbm-study-${this.preset ?? this.data}-seed${run.study.plan.seed}-${run.study.plan.runs}trials.${kind}`;
    this.events.download(name, kind === 'csv' ? studyCsv(run.study, url) : studyJson(run.study, url, this.verdicts() ?? []));
  }

  /** Downloads the run's records: the study's when there is one, else every live lane's curve
   * (CSV or JSON), with the page's address `url` in the file (issue 27: live runs had none). */
  exportRun(kind: 'csv' | 'json', url: string): void {
    if (this.study) {
      this.exportStudy(kind, url);
      return;
    }
    const lanes = this.lanes.map((l) => ({ id: l.id, label: this.laneTitle(l), status: l.status, curve: l.curve, algo: l.algo, options: { ...l.options } }));
    const name = `rbm-run-${this.preset ?? this.data}-seed${this.shared.seed ?? 'none'}-${lanes.length}lanes.${kind}`;
    this.events.download(name, kind === 'csv' ? runCsv(lanes, url) : runJson(lanes, url));
  }

  /** Where the lanes compute now: PageState.compute, `auto` resolved for the data's size. */
  computeOn(): 'cpu' | 'gpu' {
    return computeOn(this.compute, this.dataset()?.m ?? 0, this.gpuAdapter !== null);
  }

  /** Where live lanes compute: every lane whose place changes is built again there (from a
   * fresh start). */
  setCompute(compute: Compute): void {
    if (compute === this.compute) return;
    const before = this.computeOn();
    this.compute = compute;
    if (this.computeOn() !== before) for (const lane of this.lanes) this.configure(lane);
    this.events.changed();
  }

  /** The browser's WebGPU adapter `name` was found: under `auto`, lanes of MNIST-sized models
   * that have not run yet move to the GPU. */
  gpuFound(name: string): void {
    const before = this.computeOn();
    this.gpuAdapter = name;
    if (this.computeOn() !== before) for (const lane of this.lanes) if (lane.iter === 0) this.configure(lane);
    this.events.changed();
  }

  /** Whether the chart draws the q2.5–q97.5 band too. */
  setWide(wide: boolean): void {
    this.wide = wide;
    this.events.changed();
  }

  /** The core's verdicts on the preset's claims at the current bands (null: no preset with
   * claims, no study yet, or no evaluator). */
  verdicts(): Verdict[] | null {
    const p = this.catalog.presets.find((x) => x.name === this.preset);
    const run = this.study;
    const evaluate = this.options.evaluateClaims;
    if (!p?.claims.length || !evaluate) return null;
    const lr = p.rates[this.rate] ?? p.rates[0];
    if (!run) {
      // A live run whose lanes bracket their log-likelihood by AIS (sdcp-mnist): judged on them.
      const bands = bracketBands(this.lanes);
      if (!bands.length) return null;
      const end = Math.max(0, ...this.lanes.map((l) => this.untilOf(l) ?? p.iters));
      return evaluate(p.name, lr, bands, end, this.dataset()?.bound ?? null);
    }
    const key = `${p.name}:${lr}`;
    const c = this.verdictCache;
    if (c && c.version === run.version && c.key === key) return c.verdicts;
    const verdicts = evaluate(p.name, lr, run.study.claimBands(), run.study.end, this.dataset()?.bound ?? null);
    this.verdictCache = { version: run.version, key, verdicts };
    return verdicts;
  }

  /** What the claims explorer runs a grid with: the core's explorer and a study's trial workers
   * (null: no core explorer). */
  explorerEnv(): ExplorerEnv | null {
    const core = this.options.explorer;
    if (!core) return null;
    return { core, factory: this.options.watchedWorkers ?? this.factory, workers: this.options.trialWorkers, changed: () => this.events.changed() };
  }

  // ---- presets -----------------------------------------------------------------------------

  /** Replaces every lane: the page becomes the paper's experiment `name` at its rate `rateIndex`,
   * or the first screen (null), keeping the seed. */
  applyPreset(name: string | null, rateIndex = 0, scale: Scale = 'page', keepCompute = false): void {
    if (!this.mayDropStudy('Choosing another experiment')) {
      this.events.changed();
      return;
    }
    const seed = this.shared.seed ?? null;
    const p = this.catalog.presets.find((x) => x.name === name);
    if (!p) {
      const s = firstScreen(this.catalog);
      if ('seed' in s.shared) s.shared.seed = seed;
      this.load(s);
      return;
    }
    const plan = presetPlan(p, this.catalog, rateIndex, seed, scale).state;
    if (keepCompute) plan.compute = this.compute;
    this.load(plan);
  }

  /** The preset at the paper's scale or the page's: the preset set up again at that scale
   * (Compute kept). */
  setScale(scale: Scale): void {
    if (scale === this.scale || this.preset === null) return;
    this.applyPreset(this.preset, this.rate, scale, true);
  }

  /** A preset's other learning rate: every lane's η changes, nothing else. */
  applyRate(rateIndex: number): void {
    const p = this.catalog.presets.find((x) => x.name === this.preset);
    if (!p || !(rateIndex >= 0 && rateIndex < p.rates.length)) return;
    if (rateIndex !== this.rate && !this.mayDropStudy('Changing the learning rate of every lane')) {
      this.events.changed();
      return;
    }
    this.rate = rateIndex;
    for (const lane of this.lanes) {
      if (!('lr' in lane.options)) continue;
      lane.options.lr = p.rates[rateIndex];
      delete lane.inputErrors.lr;
    }
    this.configureAll();
  }
}
