// The typed message protocol between the page and a lane's worker, and the pure helpers both
// sides share. One worker runs one lane and owns its status (the lifecycle below); the page
// only sends commands, draws and handles input.
//
// Generations: every `configure` (and `reset`) carries a generation number `gen`, increasing
// per lane. Every reply carries the generation of the lane it describes, so the page drops a
// reply to a configuration it has since replaced (see lane.ts).
//
// Why not Comlink: a lane is a stream (the worker pushes progress while it trains), not a
// request/response API, and this small union keeps every message visible, typed, transferable
// (weights travel as transferred Float32Arrays) and unit-testable without a worker.

import type { CoreRecord, ErrorInfo, LoadedSet, Trace, View } from '../generated/core';
import type { AnalysisReport, AnalysisRequest } from './analyses';
import type { EstimateReport, EstimateSettings } from './estimate';

/** A lane configuration as the core reads it: option keys of the schema plus `algo` and `lane`. */
export type LaneConfig = Record<string, number | string>;

/**
 * Where a worker gets a data set the core does not build in, before it can build a lane on it.
 * Workers fetch the bytes themselves (a URL: the page's MNIST asset, or a `blob:` URL of the
 * user's file), so no large buffer ever travels in a message and the page never decompresses.
 * - `asset`: the project's gzipped data asset (`loadAsset`), e.g. MNIST's three splits;
 * - `idx`: the user's IDX images and optional labels, each gzipped or not (`loadIdx`);
 * - `patterns`: the user's drawn or pasted 0/1 patterns, one per line, as a `data:` URL (`loadPatterns`).
 */
export interface DataSource {
  /** Identifies the bytes: a worker loads each key once. */
  key: string;
  kind: 'asset' | 'idx' | 'patterns';
  /** The asset's name, or the data set name the IDX file gets. */
  name: string;
  /** What the user sees while it loads, e.g. "the MNIST digits" or the file's name. */
  label: string;
  /** The files: the asset; or the IDX images, then the labels if any. `what` names the file
   * in messages (e.g. "'train-images-idx3-ubyte.gz'"). */
  files: { url: string; what: string }[];
}

/**
 * The lifecycle of a lane, owned by its worker:
 * - `loading`: the worker has no lane yet (the wasm is loading or no configuration came), or
 *   it is loading the data set of its latest configuration (the lane it had is then held
 *   still, and training resumes on the new lane if it was running or `start` came meanwhile);
 * - `ready`: a fresh lane at its start, not running;
 * - `running`: training in time slices;
 * - `paused`: stopped by `pause`;
 * - `done`: stopped at its limit (`limit`);
 * - `failed`: stopped for good (it diverged, or its first configuration was refused); a new
 *   configuration or `reset` makes a fresh lane;
 * - `fatal`: the wasm module panicked (or did not load): the worker is unusable, the page
 *   restarts it.
 */
export type LaneStatus = 'loading' | 'ready' | 'running' | 'paused' | 'done' | 'failed' | 'fatal';

/** Page → worker. */
export type ToWorker =
  /** Build (or rebuild) the lane; a running lane keeps running with the new configuration.
   * `source` says where to load `dataset` from when the worker does not have it yet. */
  /** `compute: 'gpu'`: the lane's dense work on the browser's GPU (WebGPU), where it has one. */
  | { type: 'configure'; gen: number; config: LaneConfig; dataset: string; source?: DataSource; compute?: 'gpu' }
  | { type: 'start' }
  | { type: 'pause' }
  /** Rebuild the lane from its last accepted configuration (same seed: the same curve again). */
  | { type: 'reset'; gen: number }
  /** Stop for good at update `until` (null: run on); the lane itself is kept. */
  | { type: 'limit'; until: number | null }
  | { type: 'export' }
  /** Continue from a model file (the download format; `name` is the file's): the lane is
   * rebuilt from it with `config` and the per-lane options the file recorded, at its saved
   * update. A bad file is refused (`modelRefused`) and the lane stays as it was. Until the next
   * `configure`, `reset` goes back to the loaded model. */
  | { type: 'loadModel'; gen: number; config: LaneConfig; dataset: string; bytes: ArrayBuffer; name: string }
  /** Set option `key` (one the schema marks `live`) of the running lane from its next update
   * on, without rebuilding it; a refusal comes back as `liveRefused`. */
  | { type: 'live'; key: string; value: number | string | null }
  /** One update of lane `gen` in slow motion (a running lane pauses first): the reply is
   * `trace`, with the update's records as `progress`. */
  | { type: 'trace'; gen: number }
  /** Test hook: make the wasm core panic (`panicForTest`), as a bug would. */
  | { type: 'crash' }
  /** Test hook: destroys a GPU lane's device, as a driver reset would. */
  | { type: 'loseGpu' }
  /** The page's health check (workerHealth.ts): answer `pong` with the same id at once. */
  | { type: 'ping'; id: number }
  /** Test hook: the worker ends itself (`close()`), silently, as a killed worker does. */
  | { type: 'exit' }
  /** Load `source` (if not loaded yet) and say what it holds: the page checks a user's file
   * this way before offering it. Not tied to a lane: the reply carries `id`. */
  | { type: 'probe'; id: number; source: DataSource }
  /** Estimate the log-likelihood of `dataset` (AIS, then RAISE) under the current model of
   * lane `gen`, in this worker between training slices; replaces an estimate under way. */
  | { type: 'estimate'; gen: number; id: number; dataset: string; settings: EstimateSettings }
  /** Drop estimate `id` (if it is still under way). */
  | { type: 'cancelEstimate'; id: number }
  /** Bracket the lane's log-likelihood (AIS, then RAISE, of `dataset`) at update 0, every
   * `every` updates and at the end point, training waiting for each (the papers' "AIS every N
   * updates", e.g. Upadhya & Sastry 2017 §4.2.2); null: no schedule. Kept across lanes. */
  | { type: 'autoEstimate'; every: number | null; dataset: string; settings: EstimateSettings }
  /** An analysis of lane `gen`'s current model (protocol/analyses.ts: any kind, e.g. the
   * chain's law after k sweeps), in this worker between training slices; replaces one of the
   * same kind under way. */
  | { type: 'analysis'; gen: number; id: number; request: AnalysisRequest }
  /** Drop analysis `id` (if it is still under way). */
  | { type: 'cancelAnalysis'; id: number }
  /** Evaluation worker: the partial sums of blocks `from`..`to` of the exact log Z of `model`
   * (the core's binary model bytes); the reply is `logzParts` (or `logzFailed`) with `id`. */
  | { type: 'logz'; id: number; model: ArrayBuffer; from: number; to: number }
  /** The partial sums of every block of exact evaluation `id` of lane `gen`, in block order
   * ([max, sum] per block): the lane turns them into its record's ATLL and trains on. */
  | { type: 'exactParts'; gen: number; id: number; parts: Float64Array }
  /** Exact evaluation `id` of lane `gen` was cancelled: the lane trains on without that point. */
  | { type: 'exactSkip'; gen: number; id: number }
  /** Trial worker: run trial `trial` of a study seeded `seed` (the core's trial_seed(seed,
   * trial) replaces the configuration's seed) to update `until`, reporting its records; the
   * reply is `trialPoints` (any number) then `trialDone`, all with `id`. Replaces a trial
   * under way. */
  | {
      type: 'trial';
      id: number;
      config: LaneConfig;
      dataset: string;
      source?: DataSource;
      seed: number;
      trial: number;
      until: number;
      /** `gpu`: the trial trains on the browser's GPU (the worker loads the GPU core first);
       * where it cannot, on the CPU, saying why (`trialDevice`). */
      compute?: 'gpu';
      /** The study's own measure at each checkpoint (a preset measured by AIS, e.g.
       * sdcp-mnist): absent, the lane's records carry their exact ATLL. */
      measure?: TrialMeasure;
      /** A GPU trial measured by AIS: its checkpoints' models go to the study's AIS worker
       * (`aisAsk`), which anneals them in batches with the other trials' (aisBatcher.ts). */
      aisBatch?: boolean;
    }
  /** Trial worker: the log-weights of checkpoint `k` of trial `id` from the study's AIS
   * worker, or why it has none (`error`: the trial anneals the checkpoint itself). */
  | { type: 'aisAnswer'; id: number; k: number; logWeights: Float64Array | null; error: string | null }
  /** The study's AIS worker: anneal `request` (in a batch with the other waiting requests of its
   * shape); the reply is `aisResult` with `key`. */
  | { type: 'aisRequest'; key: number; request: AisRequest }
  /** The study's AIS worker: request `key` is of no use any more (its trial stopped). */
  | { type: 'aisCancel'; key: number }
  /** The study's AIS worker: hold (or resume) the batch under way. */
  | { type: 'aisPause'; paused: boolean }
  /** The study's AIS worker, test hook: its GPU fails (a lost device). */
  | { type: 'aisLoseGpu' }
  /** Study job worker (issue 30): run the trials of `lanes` as one GPU job (studyJobRunner.ts),
   * each lane's trials seeded as a trial worker seeds them; the replies are `studyJobStarted`
   * (which lanes it took), `studyJobPoints` (any number), then `studyJobDone`, all with `id`. */
  | {
      type: 'studyJob';
      id: number;
      dataset: string;
      source?: DataSource;
      seed: number;
      until: number;
      every: number;
      lanes: StudyJobLane[];
    }
  /** Study job worker: hold (or resume) the job. */
  | { type: 'studyJobPause'; paused: boolean }
  /** Study job worker, test hook: the job's GPU fails (a lost device). */
  | { type: 'studyJobLoseGpu' }
  /** Trial worker: drop trial `id` (if it is the one under way). */
  | { type: 'trialStop'; id: number }
  /** Trial worker: hold (or resume) the trial under way. */
  | { type: 'trialPause'; paused: boolean }
  /** Lanes take turns (app/turns.ts): with `on`, the lane computes only during a turn and asks
   * for one (`wantTurn`); without, it computes freely. */
  | { type: 'gate'; on: boolean }
  /** A turn: compute for about TURN_MS of slices, then hand it back (`turnOver`). */
  | { type: 'turn' };

/** What a lane continued from a model file: the file's name, and the configuration it runs
 * with (the recorded per-lane options included). */
export interface LoadedModel {
  name: string;
  config: Record<string, number | string | null>;
}

/** One point of a curve, as sent to the page. */
export interface CurvePoint {
  iter: number;
  sweeps: number;
  atll: number;
}

/** A record's statistics (e.g. UCD's `mean_tau`, over the updates since the previous record). */
export interface StatPoint {
  iter: number;
  sweeps: number;
  stats: Record<string, number>;
}

/** The core's view with its weights (W, m×n row-major), which travel as a transferred buffer. */
export type LaneView = View & { weights: Float32Array };

/** Worker → page. `gen` is the generation of the lane the message is about. */
export type FromWorker =
  /** The lane was (re)built from configuration `gen`; the page starts a new curve. `notice`
   * says why it has no exact curve when the page's budget dropped it. */
  /** A GPU lane's GPU failed: the lane goes on on the CPU (its curve kept), `notice` says why. */
  | { type: 'movedToCpu'; gen: number; notice: string }
  /** `gpu`: the adapter the lane runs on (absent: the CPU). */
  | { type: 'configured'; gen: number; seed: string; every: number; notice?: string; loaded?: LoadedModel; gpu?: string }
  /** Configuration `gen` was refused; the worker keeps the lane of generation `kept` (0: none). */
  | { type: 'rejected'; gen: number; error: ErrorInfo; kept: number }
  /** The worker's status changed; `message` says why a lane failed or the worker broke. */
  | {
      type: 'status';
      gen: number;
      status: LaneStatus;
      message: string | null;
      /** When the worker sent it (ms since the epoch: timeOrigin + now), for the page's
       * measure of how fast a lane answers Pause. */
      at?: number;
      /** A Pause's reply (`paused`): the update the lane stopped at, which no later slice may
       * move. */
      iter?: number;
    }
  | {
      type: 'progress';
      gen: number;
      points: CurvePoint[];
      iter: number;
      /** Updates per second over the recent slices. */
      rate: number;
      /** Milliseconds spent training this lane (its slices), since it was built. */
      elapsed: number;
      /** Statistics of the latest record (keys of the algorithm's StatSpecs). */
      stats: CoreRecord['stats'] | null;
      /** Every record's statistics in this slice, when the algorithm reports some (UCD's τ):
       * the page draws their history. */
      statPoints?: StatPoint[];
      view: LaneView | null;
    }
  | { type: 'model'; gen: number; iter: number; json: string }
  /** Model file `gen` (`loadModel`) was refused: `message` says why; the lane is unchanged. */
  | { type: 'modelRefused'; gen: number; message: string }
  /** The phases of one update of lane `gen` (`trace`). */
  | { type: 'trace'; gen: number; trace: Trace }
  /** The live edit of `key` was refused (the lane keeps its value). */
  | { type: 'liveRefused'; gen: number; key: string; message: string }
  /** Loading the data of configuration `gen`: bytes received so far, of `total` when known. */
  | { type: 'loading'; gen: number; label: string; received: number; total: number | null }
  /** The answer to `probe` `id`: the data sets it made available, or why it could not. */
  | { type: 'probed'; id: number; sets: LoadedSet[]; error: ErrorInfo | null }
  /** Progress or the end of estimate `id`, asked for lane `gen`; `scheduled` (with the Gibbs
   * sweeps per chain at the estimate's update): one of the `autoEstimate` schedule's. */
  | { type: 'estimate'; gen: number; id: number; report: EstimateReport; scheduled?: { sweeps: number } }
  /** Progress or the end of analysis `id`, asked for lane `gen`. */
  | { type: 'analysis'; gen: number; id: number; report: AnalysisReport }
  /** Lane `gen` made a record at update `iter` whose exact ATLL is deferred to the page's
   * evaluation pool (a smaller layer above 20 units): the log Z of `model` (binary model
   * bytes) over its `blocks` blocks. The lane waits for `exactParts` or `exactSkip` `id`. */
  | { type: 'exact'; gen: number; id: number; iter: number; blocks: number; model: ArrayBuffer }
  /** Evaluation worker: the partial sums of blocks `from`.. of job chunk `id`. */
  | { type: 'logzParts'; id: number; from: number; parts: Float64Array }
  /** Evaluation worker: chunk `id` failed. */
  | { type: 'logzFailed'; id: number; message: string }
  /** Trial worker: records of trial `id` (each with its statistics; `ms`: training
   * milliseconds spent on the trial when it was made). */
  | { type: 'trialPoints'; id: number; points: TrialRecord[]; taus?: TrialTaus }
  /** Trial worker: trial `id` ended (at its last update, or earlier because its model
   * diverged); `error` says why it failed instead, and `fatal` that the worker's core broke. */
  | { type: 'trialDone'; id: number; ms: number; error: string | null; fatal: boolean }
  /** Study job worker: the job of request `id` runs the trials of `lanes` (`trials` in all) on
   * GPU adapter `gpu`; the request's other lanes it leaves to the CPU (`refused`: why). */
  | { type: 'studyJobStarted'; id: number; gpu: string; lanes: number[]; trials: number; refused: { lane: number; why: string }[] }
  /** Study job worker: new records of the job's trials (`ms`: each trial's share of the job's
   * training milliseconds); `updates`: every trial's updates so far. */
  | { type: 'studyJobPoints'; id: number; trials: { lane: number; trial: number; points: TrialRecord[] }[]; updates: number }
  /** Study job worker: the job ended — every trial at its last checkpoint (or diverged) — or
   * failed (`error`: its trials run again on the CPU; before `studyJobStarted`, none ran). */
  | { type: 'studyJobDone'; id: number; ms: number; error: string | null }
  /** Trial worker: where trial `id` runs — `gpu` the adapter's name, null the CPU — and why it
   * is not where it was asked to be (`notice`); `restart`: its records so far are dropped (its
   * GPU failed and it runs again on the CPU from update 0). */
  | { type: 'trialDevice'; id: number; gpu: string | null; notice: string | null; restart: boolean }
  /** Trial worker: checkpoint `k` of trial `id` asks the study's AIS worker for its model's
   * log-weights (the reply is `aisAnswer`). */
  | { type: 'aisAsk'; id: number; k: number; request: AisRequest }
  /** The study's AIS worker: the log-weights of request `key`, or why there are none. */
  | { type: 'aisResult'; key: number; logWeights: Float64Array | null; error: string | null }
  /** The study's AIS worker: where it stands (aisBatcher.ts). */
  | { type: 'aisStatus'; status: AisBatchStatus }
  /** The answer to `ping` (any worker, even before its core loads). */
  | { type: 'pong'; id: number }
  /** A lane that takes turns has work (training, an estimate, an analysis) and asks for a turn. */
  | { type: 'wantTurn' }
  /** A lane hands its turn back; `more`: it has work left and waits for the next. */
  | { type: 'turnOver'; more: boolean };

/** The stopping times τ of a trial's latest update `iter`, as counts by τ (UCD's trials). */
export interface TrialTaus {
  iter: number;
  counts: number[];
}

/** A study's measure at each checkpoint, as `rbm reproduce` takes it: AIS or the exact ATLL
 * of the evaluation set. */
export type TrialMeasure = AisMeasure | ExactMeasure;

/** AIS (forward) of the evaluation set `dataset` with `particles` chains and `betas` inverse
 * temperatures, seeded by the core's ais_seed(trial seed, checkpoint index) (sdcp-mnist). */
export interface AisMeasure {
  dataset: string;
  particles: number;
  betas: number;
}

/** A GPU trial's checkpoint model for the study's AIS worker: forward AIS of `particles` chains
 * over `betas` linear inverse temperatures from the base model with visible biases `base` (the
 * test set's base rates), seeded `seed` (the core's ais_seed), on the m×n model (W row-major). */
export interface AisRequest {
  m: number;
  n: number;
  w: Float32Array;
  b: Float32Array;
  c: Float32Array;
  base: Float32Array;
  particles: number;
  betas: number;
  seed: number;
}

/** The study's AIS worker's state: the batch under way (models, β steps recorded of all), the
 * models of every batch run so far, requests waiting, and why it failed (null: it did not). */
export interface AisBatchStatus {
  models: number;
  done: number;
  total: number;
  batches: number[];
  waiting: number;
  failed: string | null;
}

/** The exact ATLL of the evaluation set `dataset`: log Z enumerated over the smaller layer
 * (on the trial's GPU for a GPU trial), the rows' free energies in f64 (pcd-mnist-25). */
export interface ExactMeasure {
  dataset: string;
  exact: true;
}

/** One record of a trial, as a trial worker sends it. */
/** One lane of a study job: the page's lane index, its configuration (each trial's seed
 * replaces its seed) and the indices of its trials. */
export interface StudyJobLane {
  lane: number;
  config: LaneConfig;
  trials: number[];
}

export interface TrialRecord {
  iter: number;
  sweeps: number;
  atll: number;
  stats: Record<string, number>;
  ms: number;
  /** A trial measured by the study (AIS at its checkpoints): the milliseconds its worker spent
   * on it, estimates included (`ms` is training alone, as the CLI's), for the time left. */
  wallMs?: number;
}

/** Wall-clock work per slice: small enough for pause to answer at once, big enough to be cheap. */
export const SLICE_MS = 40;

/** Wall-clock length of a lane's turn when lanes take turns (app/turns.ts): a few slices. */
export const TURN_MS = 2 * SLICE_MS;

/** Minimum time between two views of the model for the panels. */
export const VIEW_MS = 250;

/** The time of this context in ms since the epoch, comparable between the page and its
 * workers (each `performance.now()` counts from its own origin). */
export function epochNow(): number {
  return performance.timeOrigin + performance.now();
}

/** Largest number of updates in one slice. */
export const MAX_CHUNK = 100_000;

/**
 * The number of updates for the next slice, from the last one: aim at `target` ms, grow at most
 * ×2 and shrink at most ÷4 per step (one slow evaluation should not collapse the chunk).
 */
export function nextChunk(prev: number, elapsedMs: number, target = SLICE_MS): number {
  if (!(elapsedMs > 0)) return Math.min(MAX_CHUNK, prev * 2);
  const ideal = (prev * target) / elapsedMs;
  const next = Math.max(prev / 4, Math.min(prev * 2, ideal));
  return Math.max(1, Math.min(MAX_CHUNK, Math.round(next)));
}

/** A rate as exponentially decayed sums of updates and of time (weighted by time, so slow slices
 * that include an exact evaluation count for what they cost). */
export interface Rate {
  updates: number;
  ms: number;
}

/** Adds one slice to a rate; `decay` is how much of the past is forgotten per slice. */
export function addToRate(r: Rate, updates: number, elapsedMs: number, decay = 0.1): Rate {
  if (!(elapsedMs >= 0) || updates <= 0) return r;
  return { updates: r.updates * (1 - decay) + updates, ms: r.ms * (1 - decay) + elapsedMs };
}

/** Updates per second of a rate (0 before any measurable slice). */
export function perSecond(r: Rate): number {
  return r.ms > 0 ? (1000 * r.updates) / r.ms : 0;
}

/** Updates left until the next record (a multiple of `every`) after `iter`. */
export function toNextRecord(iter: number, every: number): number {
  const e = Math.max(1, Math.floor(every));
  return e - (iter % e);
}

/** Whether `msg` sets its worker to work on the browser's GPU: a lane or a trial on WebGPU, a
 * study's GPU job, or its AIS batches. Chromium runs a worker's WebGPU calls through its GPU
 * process, and some wait for it (opening a device, for one): a software GPU on a busy machine
 * holds such a worker for tens of seconds, alive (workerHealth.ts gives it longer). */
export function asksForGpu(msg: ToWorker): boolean {
  switch (msg.type) {
    case 'configure':
    case 'trial':
      return msg.compute === 'gpu';
    case 'studyJob':
    case 'aisRequest':
      return true;
    default:
      return false;
  }
}

/** Whether a thrown value is the core's error object `{kind, key, message}`. */
export function isErrorInfo(e: unknown): e is ErrorInfo {
  return typeof e === 'object' && e !== null && typeof (e as ErrorInfo).kind === 'string' && typeof (e as ErrorInfo).message === 'string';
}
