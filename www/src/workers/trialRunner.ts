// A trial worker's logic, free of worker globals so the unit tests drive it with a fake core:
// one trial at a time, built as `rbm reproduce` builds trial i of a lane (the configuration's
// seed replaced by the core's trial_seed(seed, i); the lane's index is its stream), run in
// time slices of one wasm `step` each (so stop and pause answer between two slices), its
// records streamed to the page. Like `Study::trial` in the core, a trial whose length is not a
// multiple of the evaluation interval adds the record of its last update, and a trial whose
// model diverges ends there with the records made so far.
//
// A trial asked for the GPU (`compute: 'gpu'`, issue 30) trains as a GPU lane of the worker's
// GPU core (`rbm_gpu::lane::GpuLane`, loaded by the worker first, as a live lane's): its
// records arrive a slice or more after their update, so the trial is stepped (never waiting)
// until they are in. A trial with the study's own measure (`measure`: AIS at every checkpoint,
// as `rbm reproduce` measures sdcp-mnist, or the exact ATLL of the evaluation set, as it
// measures pcd-mnist-25) trains up to each checkpoint, then measures the checkpoint's model —
// on the lane's GPU for a GPU lane — a few β steps (or enumeration steps: the GPU's dispatches
// of `ExactWalk`, the CPU's blocks of 2^16 states) per slice, never waiting, and sends the
// point once its measure is in; its training time leaves the measures out, as the CLI's.
// A GPU that fails (device lost, a refused limit) makes the trial run again on the CPU from
// update 0, saying so (`trialDevice` with `restart`); the worker's later trials run on the CPU.
// A GPU trial measured by AIS takes its checkpoint's AIS as a batch of its model alone
// (`studyAis`), and with `aisBatch` sends the model to the study's AIS worker instead
// (`aisAsk`, relayed by the page; aisBatcher.ts), which anneals it with the other trials' models
// and answers with its log-weights (`aisAnswer`) — the same bits as the trial's own batch of one.
// An answer without log-weights (the AIS worker failed) makes the trial anneal it itself.
import type { AisProgress, CoreRecord, ErrorInfo } from '../generated/core';
import {
  type DataSource,
  type FromWorker,
  isErrorInfo,
  type LaneConfig,
  nextChunk,
  type ToWorker,
  type TrialMeasure,
  type TrialRecord,
} from '../protocol/messages';
import { type Core, type CoreEstimate, errorMessage, fatalMessage, type Host, type Slice } from './runner';

/** Target length of a trial's slice: longer than a lane's (nothing is drawn from it), short
 * enough for stop and pause to answer at once. */
export const TRIAL_SLICE_MS = 100;

/** The part of a core lane a trial uses. */
export interface TrialLane {
  step(updates: number, view: boolean): Slice;
  record(): CoreRecord;
  readonly iter: number;
  /** UCD's stopping times of the latest update (counts by τ); undefined for other algorithms. */
  readonly taus?: Uint32Array | null;
  /** A GPU lane: copies of its records are on their way (step again until they are in). */
  readonly busy?: boolean;
  /** The GPU adapter the lane runs on (undefined/null: the CPU). */
  readonly gpu?: string | null;
  /** Test hook: destroys a GPU lane's device. */
  loseGpuForTest?(): void;
  /** AIS of `dataset` under the model of the lane's latest record (a CPU lane: its current
   * model), on the lane's GPU for a GPU lane. Throws ErrorInfo. */
  ais(dataset: string, particles: number, betas: number, seed: number, reverse: boolean): CoreEstimate;
  /** The exact ATLL of `dataset` under the same model, its log Z enumerated step by step (on
   * the lane's GPU for a GPU lane, never waiting; else on the CPU). Throws ErrorInfo. */
  exactMeasure(dataset: string): CoreMeasure;
  /** A GPU lane (the GPU core's): a study's checkpoint AIS of `dataset` under the model of its
   * latest record, to send to the study's AIS worker or to step here as a batch of this model
   * alone (the same bits). Throws ErrorInfo. */
  studyAis?(dataset: string, particles: number, betas: number, seed: number): StudyAisRun;
  free(): void;
}

/** A GPU trial's checkpoint AIS (the core's StudyAis): the model and base rates for the study's
 * AIS worker, and its log-weights back from it (`accept`), or stepped here. */
export interface StudyAisRun extends CoreEstimate {
  readonly m: number;
  readonly n: number;
  weights(): Float32Array;
  visibleBiases(): Float32Array;
  hiddenBiases(): Float32Array;
  baseBiases(): Float32Array;
  /** The log-weights from the study's AIS worker: `step` then says done. Throws ErrorInfo. */
  accept(logWeights: Float64Array): void;
}

/** A checkpoint's measure under way: an AIS run (`CoreEstimate`) or an exact enumeration. */
export interface CoreMeasure {
  /** Up to `maxSteps` more steps (at least one). Throws the core's ErrorInfo. */
  step(maxSteps: number): AisProgress;
  /** The measure, once `step` said done. */
  result(): { atll: number };
  free(): void;
}

/** The part of the core a trial worker uses. */
export interface TrialCore extends Pick<Core, 'lastPanic' | 'hasData' | 'loadData' | 'gpuRefused' | 'gpuFailed'> {
  /** `gpu`: on the browser's GPU (opened before by the worker); where it cannot be, on the CPU
   * (`gpuRefused` then says why). */
  newTrialLane(config: LaneConfig, dataset: string, gpu?: boolean): TrialLane;
  /** The core's trial_seed(seed, trial). */
  trialSeed(seed: number, trial: number): number;
  /** The core's ais_seed(trial seed, checkpoint index): the CLI's seed of a checkpoint's AIS. */
  aisSeed(trialSeed: number, k: number): number;
}

/** Steps of a slice of a checkpoint's measure, at first (then sized for the slice): annealing
 * steps, or an exact enumeration's dispatches (GPU) or blocks (CPU). */
const FIRST_AIS_STEPS = 8;
const FIRST_EXACT_STEPS = 1;

/** A checkpoint waiting for (or under) its estimate. */
interface Checkpoint {
  record: CoreRecord;
  run: CoreMeasure | null;
  /** Steps per slice. */
  chunk: number;
  /** Its model is with the study's AIS worker: the trial waits for `aisAnswer`. */
  asked?: boolean;
}

interface Job {
  id: number;
  lane: TrialLane;
  until: number;
  chunk: number;
  ms: number;
  /** The update of the last record sent. */
  last: number;
  /** The trial's request (to run it again on the CPU when its GPU fails). */
  msg: TrialMsg;
  /** The trial's seed. */
  seed: number;
  /** The study's measure (null: the records' own exact ATLL). */
  measure: TrialMeasure | null;
  /** The checkpoints' updates (the study's schedule) and the index of the next to measure. */
  checkpoints: number[];
  k: number;
  /** The checkpoint being measured. */
  pending: Checkpoint | null;
  /** A GPU lane: when its latest training slice ended (its updates run after `step` returns,
   * so its training time is wall time between slices). */
  since: number | null;
  /** Milliseconds the worker spent on the trial, its estimates and waits included, and when
   * its latest slice ended (null: none yet, or paused since). */
  wall: number;
  tickEnd: number | null;
}

type TrialMsg = Extract<ToWorker, { type: 'trial' }>;

/** The updates at which a trial of `until` updates is evaluated every `every` (the core's
 * `schedule`, as study.ts's). */
function checkpointsOf(until: number, every: number): number[] {
  const e = Math.max(1, Math.floor(every));
  const s: number[] = [];
  for (let k = 0; k * e <= until; k++) s.push(k * e);
  if (until % e !== 0) s.push(until);
  return s;
}

function point(r: CoreRecord, ms: number): TrialRecord | null {
  return r.atll === null ? null : { iter: r.iter, sweeps: r.sweeps, atll: r.atll, stats: { ...r.stats }, ms };
}

export class TrialRunner {
  private job: Job | null = null;
  private paused = false;
  private pending = false;
  private broken = false;
  /** The trial whose data is loading (a newer trial or a stop replaces it). */
  private loadingId: number | null = null;

  constructor(
    private readonly core: TrialCore,
    private readonly host: Host,
  ) {}

  /** Handles a trial message; false for any other message. */
  handle(msg: ToWorker): boolean {
    switch (msg.type) {
      case 'trial':
        this.drop();
        if (msg.source && !this.core.hasData(msg.source.key)) this.load(msg, msg.source);
        else this.build(msg);
        return true;
      case 'trialStop':
        if (this.job?.id === msg.id || this.loadingId === msg.id) this.drop();
        return true;
      case 'aisAnswer':
        this.answer(msg.id, msg.k, msg.logWeights, msg.error);
        return true;
      case 'loseGpu':
        // Test hook: the GPU of the trial under way fails (a lane's worker: its lane's, below).
        if (!this.job?.lane.gpu) return false;
        this.job.lane.loseGpuForTest?.();
        return true;
      case 'trialPause':
        this.paused = msg.paused;
        if (this.job) {
          // A pause's time is not the trial's.
          this.job.since = null;
          this.job.tickEnd = null;
        }
        this.kick();
        return true;
      default:
        return false;
    }
  }

  private post(msg: FromWorker, transfer: Transferable[] = []): void {
    this.host.post(msg, transfer);
  }

  private drop(): void {
    this.job?.pending?.run?.free();
    this.job?.lane.free();
    this.job = null;
    this.loadingId = null;
  }

  private load(msg: Extract<ToWorker, { type: 'trial' }>, source: DataSource): void {
    this.loadingId = msg.id;
    this.core
      .loadData(source, () => undefined)
      .then(
        () => {
          if (this.loadingId === msg.id) this.build(msg);
        },
        (e: unknown) => {
          if (this.loadingId !== msg.id) return;
          this.loadingId = null;
          this.post({ type: 'trialDone', id: msg.id, ms: 0, error: errorMessage(e), fatal: false });
        },
      );
  }

  private build(msg: TrialMsg, cpuBecause: string | null = null): void {
    this.loadingId = null;
    if (this.broken) {
      this.post({ type: 'trialDone', id: msg.id, ms: 0, error: 'the trial worker broke earlier', fatal: true });
      return;
    }
    try {
      const seed = this.core.trialSeed(msg.seed, msg.trial);
      const config: LaneConfig = { ...msg.config, seed };
      const askGpu = msg.compute === 'gpu' && cpuBecause === null;
      const lane = this.core.newTrialLane(config, msg.dataset, askGpu);
      const every = typeof msg.config.every === 'number' ? msg.config.every : 1;
      this.job = {
        id: msg.id,
        lane,
        until: msg.until,
        chunk: 1,
        ms: 0,
        last: -1,
        msg,
        seed,
        measure: msg.measure ?? null,
        checkpoints: checkpointsOf(msg.until, every),
        k: 0,
        pending: null,
        since: null,
        wall: 0,
        tickEnd: null,
      };
      if (msg.compute === 'gpu') {
        const gpu = lane.gpu ?? null;
        const why = cpuBecause ?? (gpu ? null : (this.core.gpuRefused?.() ?? 'the GPU was not available'));
        const notice =
          why === null ? null : cpuBecause !== null ? `The GPU stopped (${why}): the trial runs again on the CPU from update 0.` : `On the CPU: ${why}.`;
        this.post({ type: 'trialDevice', id: msg.id, gpu, notice, restart: cpuBecause !== null });
      }
    } catch (e) {
      this.fail(msg.id, e);
      return;
    }
    this.kick();
  }

  /** The GPU of trial `job` failed (`why`): the trial runs again on the CPU from update 0, and
   * the worker's later trials run on the CPU. */
  private toCpu(job: Job, why: string): void {
    this.core.gpuFailed?.(why);
    this.drop();
    this.build(job.msg, why);
  }

  private kick(): void {
    if (this.job && !this.paused && !this.pending) {
      this.pending = true;
      this.host.schedule(() => this.tick());
    }
  }

  /** A failure: the core's refusal (the trial fails) or a panic (the worker is done for). */
  private fail(id: number, e: unknown): void {
    const fatal = !isErrorInfo(e);
    if (fatal) this.broken = true;
    const ms = this.job?.ms ?? 0;
    this.job = null;
    this.post({ type: 'trialDone', id, ms, error: fatal ? fatalMessage(e, this.core) : errorMessage(e), fatal });
  }

  /** One slice of the trial under way. */
  tick(): void {
    this.pending = false;
    const job = this.job;
    if (!job || this.paused) return;
    const start = this.host.now();
    try {
      if (job.measure) this.measuredSlice(job, job.measure, start);
      else this.slice(job);
    } catch (e) {
      // A GPU lane's refusal (a lost device, a refused limit): the trial goes to the CPU.
      if (job.lane.gpu && isErrorInfo(e) && this.job === job) this.toCpu(job, e.message);
      else this.fail(job.id, e);
    }
  }

  /** Training time of a slice that took `elapsed` ms of `step`: a GPU lane's is the wall time
   * since its previous training slice ended (its updates run after `step` returns). */
  private trained(job: Job, t0: number, elapsed: number): number {
    if (!job.lane.gpu) return elapsed;
    const end = this.host.now();
    const ms = Math.max(0, end - (job.since ?? t0));
    job.since = end;
    return ms;
  }

  /** Whether slice result `r` is a failed GPU (the trial then runs again on the CPU). */
  private gpuFailed(job: Job, r: Slice): boolean {
    if (!job.lane.gpu || r.error === null || r.error.kind === 'diverged') return false;
    this.toCpu(job, r.error.message);
    return true;
  }

  private slice(job: Job): void {
    const n = Math.max(0, Math.min(job.chunk, job.until - job.lane.iter));
    const t0 = this.host.now();
    const r = job.lane.step(n, false);
    const elapsed = Math.max(0, this.host.now() - t0);
    job.ms += this.trained(job, t0, elapsed);
    if (this.gpuFailed(job, r)) return;
    if (n === job.chunk || elapsed > 0) job.chunk = nextChunk(Math.max(1, n), elapsed, TRIAL_SLICE_MS);
    const points: TrialRecord[] = [];
    for (const rec of r.records) {
      const p = point(rec, job.ms);
      if (p && p.iter > job.last) {
        points.push(p);
        job.last = p.iter;
      }
    }
    const error: ErrorInfo | null = r.error;
    // A GPU lane has ended once its last records are in.
    const ended = error !== null || (job.lane.iter >= job.until && job.lane.busy !== true);
    if (ended && error === null && job.last < job.until && !job.lane.gpu) {
      // The last checkpoint of a run whose length is not a multiple of the interval.
      const p = point(job.lane.record(), job.ms);
      if (p) {
        points.push(p);
        job.last = p.iter;
      }
    }
    if (points.length) {
      const taus = job.lane.taus;
      this.post({ type: 'trialPoints', id: job.id, points, ...(taus ? { taus: { iter: job.lane.iter, counts: [...taus] } } : {}) });
    }
    if (!ended) {
      this.kick();
      return;
    }
    this.drop();
    // A divergence ends the trial with the records made so far (as the CLI's trials do);
    // any other error of the core is a failure of the trial.
    const failed = error !== null && error.kind !== 'diverged';
    this.post({ type: 'trialDone', id: job.id, ms: job.ms, error: failed ? error.message : null, fatal: false });
  }
  /** One slice of a trial measured by the study (AIS or the exact ATLL at every checkpoint, as
   * `rbm reproduce` measures it): training up to the next checkpoint, then that checkpoint's
   * measure, a few steps per slice, on the model of the checkpoint's record. */
  private measuredSlice(job: Job, measure: TrialMeasure, start: number): void {
    const cp = job.pending;
    if (cp && !(job.lane.busy === true)) {
      this.estimateSlice(job, measure, cp, start);
      return;
    }
    const target = job.checkpoints[job.k] ?? job.until;
    const n = Math.max(0, Math.min(job.chunk, target - job.lane.iter));
    const t0 = this.host.now();
    const r = job.lane.step(n, false);
    const elapsed = Math.max(0, this.host.now() - t0);
    if (n > 0 || job.lane.busy === true) job.ms += this.trained(job, t0, elapsed);
    if (this.gpuFailed(job, r)) return;
    if (n > 0 && (n === job.chunk || elapsed > 0)) job.chunk = nextChunk(Math.max(1, n), elapsed, TRIAL_SLICE_MS);
    const first = 'exact' in measure ? FIRST_EXACT_STEPS : FIRST_AIS_STEPS;
    for (const rec of r.records) if (rec.iter === target && !job.pending) job.pending = { record: rec, run: null, chunk: first };
    if (r.error !== null) {
      // A divergence ends the trial with the points measured so far; another error fails it.
      this.end(job, r.error.kind === 'diverged' ? null : r.error.message);
      return;
    }
    if (!job.pending && !job.lane.gpu && job.lane.iter >= target) {
      // The last checkpoint of a run whose length is not a multiple of the interval.
      job.pending = { record: job.lane.record(), run: null, chunk: first };
    }
    if (job.pending) job.since = null; // the estimate's time is not training time
    this.clock(job, start);
    this.kick();
  }

  /** Adds the slice that started at `start` (and the wait before it) to the trial's wall time. */
  private clock(job: Job, start: number): void {
    const end = this.host.now();
    job.wall += Math.max(0, end - (job.tickEnd ?? start));
    job.tickEnd = end;
  }

  /** The study's AIS worker's answer for checkpoint `k` of trial `id`: its log-weights, or
   * (`error`) none, and the trial anneals the checkpoint itself. */
  private answer(id: number, k: number, logWeights: Float64Array | null, error: string | null): void {
    const job = this.job;
    const cp = job?.pending;
    if (!job || job.id !== id || job.k !== k || !cp?.asked || !cp.run) return;
    cp.asked = false;
    if (logWeights && error === null) {
      try {
        (cp.run as StudyAisRun).accept(logWeights);
      } catch (e) {
        this.fail(job.id, e);
        return;
      }
    } else {
      // Its own AIS from here on: the same numbers, only later.
      job.msg = { ...job.msg, aisBatch: false };
    }
    this.kick();
  }

  /** One slice of checkpoint `cp`'s measure; its point once the measure is in. */
  private estimateSlice(job: Job, measure: TrialMeasure, cp: Checkpoint, start: number): void {
    if (cp.asked) return; // with the study's AIS worker: `answer` resumes it
    if (!cp.run) {
      const seed = this.core.aisSeed(job.seed, job.k);
      if ('exact' in measure) cp.run = job.lane.exactMeasure(measure.dataset);
      else if (job.lane.gpu && job.lane.studyAis) {
        const run = job.lane.studyAis(measure.dataset, measure.particles, measure.betas, seed);
        cp.run = run;
        if (job.msg.aisBatch) {
          const request = {
            m: run.m,
            n: run.n,
            w: run.weights(),
            b: run.visibleBiases(),
            c: run.hiddenBiases(),
            base: run.baseBiases(),
            particles: measure.particles,
            betas: measure.betas,
            seed,
          };
          cp.asked = true;
          this.clock(job, start);
          this.post({ type: 'aisAsk', id: job.id, k: job.k, request }, [request.w.buffer, request.b.buffer, request.c.buffer, request.base.buffer]);
          return;
        }
      } else cp.run = job.lane.ais(measure.dataset, measure.particles, measure.betas, seed, false);
    }
    const t0 = this.host.now();
    const p = cp.run.step(cp.chunk);
    const elapsed = Math.max(0, this.host.now() - t0);
    cp.chunk = nextChunk(cp.chunk, elapsed, TRIAL_SLICE_MS);
    this.clock(job, start);
    if (!p.done) {
      this.kick();
      return;
    }
    const est = cp.run.result();
    cp.run.free();
    cp.run = null;
    job.pending = null;
    const r = cp.record;
    this.post({
      type: 'trialPoints',
      id: job.id,
      points: [{ iter: r.iter, sweeps: r.sweeps, atll: est.atll, stats: { ...r.stats }, ms: job.ms, wallMs: job.wall }],
    });
    job.last = r.iter;
    job.k += 1;
    if (job.k >= job.checkpoints.length) this.end(job, null);
    else this.kick();
  }

  /** Trial `job` ended (`error`: it failed). */
  private end(job: Job, error: string | null): void {
    this.drop();
    this.post({ type: 'trialDone', id: job.id, ms: job.ms, error, fatal: false });
  }
}
