// A trial worker's logic, free of worker globals so the unit tests drive it with a fake core:
// one trial at a time, built as `rbm reproduce` builds trial i of a lane (the configuration's
// seed replaced by the core's trial_seed(seed, i); the lane's index is its stream), run in
// time slices of one wasm `step` each (so stop and pause answer between two slices), its
// records streamed to the page. Like `Study::trial` in the core, a trial whose length is not a
// multiple of the evaluation interval adds the record of its last update, and a trial whose
// model diverges ends there with the records made so far.
import type { CoreRecord, ErrorInfo } from '../generated/core';
import { type DataSource, type FromWorker, isErrorInfo, type LaneConfig, nextChunk, type ToWorker, type TrialRecord } from '../protocol/messages';
import { type Core, errorMessage, fatalMessage, type Host, type Slice } from './runner';

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
  free(): void;
}

/** The part of the core a trial worker uses. */
export interface TrialCore extends Pick<Core, 'lastPanic' | 'hasData' | 'loadData'> {
  newTrialLane(config: LaneConfig, dataset: string): TrialLane;
  /** The core's trial_seed(seed, trial). */
  trialSeed(seed: number, trial: number): number;
}

interface Job {
  id: number;
  lane: TrialLane;
  until: number;
  chunk: number;
  ms: number;
  /** The update of the last record sent. */
  last: number;
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
      case 'trialPause':
        this.paused = msg.paused;
        this.kick();
        return true;
      default:
        return false;
    }
  }

  private post(msg: FromWorker): void {
    this.host.post(msg);
  }

  private drop(): void {
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

  private build(msg: Extract<ToWorker, { type: 'trial' }>): void {
    this.loadingId = null;
    if (this.broken) {
      this.post({ type: 'trialDone', id: msg.id, ms: 0, error: 'the trial worker broke earlier', fatal: true });
      return;
    }
    try {
      const config: LaneConfig = { ...msg.config, seed: this.core.trialSeed(msg.seed, msg.trial) };
      const lane = this.core.newTrialLane(config, msg.dataset);
      this.job = { id: msg.id, lane, until: msg.until, chunk: 1, ms: 0, last: -1 };
    } catch (e) {
      this.fail(msg.id, e);
      return;
    }
    this.kick();
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
    try {
      this.slice(job);
    } catch (e) {
      this.fail(job.id, e);
    }
  }

  private slice(job: Job): void {
    const n = Math.max(0, Math.min(job.chunk, job.until - job.lane.iter));
    const t0 = this.host.now();
    const r = job.lane.step(n, false);
    const elapsed = Math.max(0, this.host.now() - t0);
    job.ms += elapsed;
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
    const ended = error !== null || job.lane.iter >= job.until;
    if (ended && error === null && job.last < job.until) {
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
}
