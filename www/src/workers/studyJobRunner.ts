// A study job worker's logic (issue 30: "a study's trials run as one batched GPU job"), free of
// worker globals so the unit tests drive it with a fake core: the trials of a small-data study's
// lanes that one job runs train together on the worker's GPU (the GPU core's WasmStudyJob: one
// workgroup per trial, rbm_gpu::study), in slices of one `step` each that never wait for the GPU
// — updates are recorded a bounded number at a time, a checkpoint's models come back a slice or
// more later, and the records are made on the host as Study::trial makes them (the exact ATLL in
// f64; update 0's are the CPU study's, bit for bit). Each trial's records go to the page with its
// share of the job's training time. A job that fails (no WebGPU, a lost device, a refused limit)
// says why in `studyJobDone`, and the page runs its trials again on the CPU.
import type { CoreRecord, ErrorInfo } from '../generated/core';
import { type DataSource, type FromWorker, isErrorInfo, nextChunk, type StudyJobLane, type ToWorker, type TrialRecord } from '../protocol/messages';
import { errorMessage, type Host } from './runner';

/** Target wall time of the updates a slice gives the GPU. */
export const JOB_SLICE_MS = 100;

/** How long the job waits before it looks again at a GPU that has not caught up (ms): a
 * zero-delay loop would keep a CPU core busy that a software GPU needs. */
export const JOB_WAIT_MS = 4;

/** The worker's host, with a timer for the waits. */
export interface JobHost extends Host {
  /** Runs `fn` in `ms` milliseconds. */
  later(fn: () => void, ms: number): void;
}

/** One `step` of the core's job (its JobSlice). */
export interface JobSliceResult {
  trials: { lane: number; trial: number; records: CoreRecord[] }[];
  updates: number;
  done: boolean;
  error: ErrorInfo | null;
}

/** The part of the GPU core's WasmStudyJob a study job worker uses. */
export interface CoreStudyJob {
  readonly adapter: string;
  readonly lanes: ArrayLike<number>;
  readonly trials: number;
  refused(): { lane: number; why: string }[];
  /** The job waits for the GPU (copies or the fence not in yet). */
  readonly busy: boolean;
  /** Up to `maxUpdates` more updates; the records whose models are in. Throws ErrorInfo. */
  step(maxUpdates: number): JobSliceResult;
  loseGpuForTest(): void;
  free(): void;
}

/** What a study job worker needs of its core. */
export interface StudyJobCore {
  /** Loads the GPU core, opens the GPU and loads `source` into it: the adapter's name. */
  prepare(source: DataSource | undefined): Promise<string>;
  /** The GPU core's `new WasmStudyJob(request)`. Throws ErrorInfo. */
  newJob(request: { dataset: string; seed: number; until: number; every: number; lanes: StudyJobLane[] }): CoreStudyJob;
  /** The panic message of the core, if it panicked. */
  lastPanic(): string | null;
}

type JobMsg = Extract<ToWorker, { type: 'studyJob' }>;

interface Running {
  id: number;
  job: CoreStudyJob;
  chunk: number;
  /** When the latest updates were given to the GPU (null: none yet or paused since) and how many. */
  advancedAt: number | null;
  given: number;
  /** Training milliseconds so far (pauses left out) and when the latest slice ended. */
  ms: number;
  tickEnd: number | null;
}

function point(r: CoreRecord, ms: number): TrialRecord | null {
  return r.atll === null ? null : { iter: r.iter, sweeps: r.sweeps, atll: r.atll, stats: { ...r.stats }, ms };
}

export class StudyJobRunner {
  private run: Running | null = null;
  private paused = false;
  private pending = false;
  /** The request being prepared (its GPU opening, its data loading). */
  private preparing: number | null = null;

  constructor(
    private readonly core: StudyJobCore,
    private readonly host: JobHost,
  ) {}

  /** Handles a study job message; false for any other message. */
  handle(msg: ToWorker): boolean {
    switch (msg.type) {
      case 'studyJob':
        this.drop();
        this.start(msg);
        return true;
      case 'studyJobPause':
        this.paused = msg.paused;
        if (this.run) {
          this.run.advancedAt = null;
          this.run.tickEnd = null;
        }
        this.kick();
        return true;
      case 'studyJobLoseGpu':
        this.run?.job.loseGpuForTest();
        return true;
      default:
        return false;
    }
  }

  private post(msg: FromWorker): void {
    this.host.post(msg);
  }

  private drop(): void {
    this.run?.job.free();
    this.run = null;
    this.preparing = null;
  }

  private start(msg: JobMsg): void {
    this.preparing = msg.id;
    this.core.prepare(msg.source).then(
      () => {
        if (this.preparing === msg.id) this.build(msg);
      },
      (e: unknown) => {
        if (this.preparing !== msg.id) return;
        this.preparing = null;
        this.post({ type: 'studyJobDone', id: msg.id, ms: 0, error: errorMessage(e) });
      },
    );
  }

  private build(msg: JobMsg): void {
    this.preparing = null;
    try {
      const { dataset, seed, until, every, lanes } = msg;
      const job = this.core.newJob({ dataset, seed, until, every, lanes });
      this.run = { id: msg.id, job, chunk: 1, advancedAt: null, given: 0, ms: 0, tickEnd: null };
      this.post({ type: 'studyJobStarted', id: msg.id, gpu: job.adapter, lanes: [...Array.from(job.lanes)], trials: job.trials, refused: job.refused() });
    } catch (e) {
      this.fail(msg.id, e);
      return;
    }
    this.kick();
  }

  private fail(id: number, e: unknown): void {
    const panic = isErrorInfo(e) ? null : this.core.lastPanic();
    const ms = this.run?.ms ?? 0;
    this.drop();
    this.post({ type: 'studyJobDone', id, ms, error: panic ? `the GPU core broke: ${panic}` : errorMessage(e) });
  }

  private kick(): void {
    if (this.run && !this.paused && !this.pending) {
      this.pending = true;
      if (this.run.job.busy) this.host.later(() => this.tick(), JOB_WAIT_MS);
      else this.host.schedule(() => this.tick());
    }
  }

  /** One slice of the job. */
  tick(): void {
    this.pending = false;
    const run = this.run;
    if (!run || this.paused) return;
    const start = this.host.now();
    run.ms += Math.max(0, start - (run.tickEnd ?? start));
    try {
      // The GPU did the last slice's updates when the job is free again: size the next by it.
      const free = !run.job.busy;
      if (free && run.advancedAt !== null && run.given > 0) run.chunk = nextChunk(run.given, start - run.advancedAt, JOB_SLICE_MS);
      const r = run.job.step(run.chunk);
      const end = this.host.now();
      run.ms += Math.max(0, end - start);
      run.tickEnd = end;
      if (free && r.error === null) {
        run.advancedAt = start;
        run.given = run.chunk;
      }
      if (r.trials.length) {
        const share = run.ms / Math.max(1, run.job.trials);
        const trials = r.trials.map((t) => ({
          lane: t.lane,
          trial: t.trial,
          points: t.records.flatMap((rec) => point(rec, share) ?? []),
        }));
        this.post({ type: 'studyJobPoints', id: run.id, trials, updates: r.updates });
      }
      if (r.error !== null || r.done) {
        this.drop();
        this.post({ type: 'studyJobDone', id: run.id, ms: run.ms, error: r.error?.message ?? null });
        return;
      }
    } catch (e) {
      this.fail(run.id, e);
      return;
    }
    this.kick();
  }
}
