// A study under way: the Study (study.ts: trials, bands, progress) and the pool of trial
// workers (trialPool.ts) that runs it, with its status (ready, running, paused, done) and the
// time it has been running. DOM-free; the App makes one when the user starts a study and drops
// it when anything it depends on changes.
//
// A GPU study of small data (`gpuJob`, issue 30) first offers every lane to one GPU job
// (studyJob.ts): the trials of the lanes it takes train together on one GPU in one worker, the
// others go to the trial workers as before (each trial on its own GPU lane). A job that fails —
// no WebGPU, a lost device, a refused limit, its worker gone — hands its unfinished trials back
// to the trial workers, on the CPU from update 0, saying why.

import type { LaneConfig } from '../protocol/messages';
import { StudyAis } from '../workers/studyAis';
import { StudyJob, type StudyJobRequest, studyJobText } from '../workers/studyJob';
import { type TrialJob, TrialPool } from '../workers/trialPool';
import type { WorkerFactory } from './lane';
import { Study, type StudyPlan, type Trial } from './study';

export type StudyStatus = 'ready' | 'running' | 'paused' | 'done';

export class StudyRun {
  readonly study: Study;
  status: StudyStatus = 'ready';
  /** Grows with every change of the study's numbers (for caches of what is drawn). */
  version = 0;
  private readonly pool: TrialPool;
  /** The study's AIS worker (a GPU study measured by AIS, `batchAis`): its trials' checkpoints
   * annealed in batches on one GPU (studyAis.ts); null: each trial anneals its own. */
  readonly ais: StudyAis | null;
  /** The study's GPU job (null: none asked, or not started yet). */
  private job: StudyJob | null = null;
  /** What the job runs (once it has started), and why it failed (null: it has not). */
  jobState: { gpu: string; lanes: number; trials: number; updates: number; until: number; refused: { label: string; why: string }[] } | null = null;
  jobFailed: string | null = null;
  /** The trials the job holds; and those it gave back, which run on the CPU. */
  private jobTrials: Trial[] = [];
  private readonly onCpu = new Set<Trial>();
  /** Milliseconds run before the current stretch, and when the current stretch began. */
  private ranMs = 0;
  private since: number | null = null;

  constructor(
    plan: StudyPlan,
    job: (trial: Trial) => Omit<TrialJob, 'trial'>,
    private readonly factory: WorkerFactory,
    readonly workers: number,
    private readonly changed: () => void,
    private readonly now: () => number = () => performance.now(),
    batchAis = false,
    private readonly gpuJob: (Omit<StudyJobRequest, 'lanes'> & { configs: LaneConfig[] }) | null = null,
  ) {
    this.study = new Study(plan);
    if (gpuJob) for (let lane = 0; lane < plan.lanes.length; lane++) this.study.held.add(lane);
    const ais = batchAis ? new StudyAis(factory, () => this.bump()) : null;
    this.ais = ais;
    this.pool = new TrialPool(factory, workers, {
      next: () => {
        const t = this.study.next();
        if (!t) return null;
        const full = job(t);
        // A trial a failed GPU job gave back runs on the CPU.
        const j = this.onCpu.has(t) ? { ...full, compute: undefined } : full;
        // A GPU trial measured by AIS sends its checkpoints to the study's AIS worker.
        const batched = ais !== null && j.compute === 'gpu' && j.measure !== undefined && !('exact' in j.measure);
        return { trial: t, ...j, ...(batched ? { aisBatch: true } : {}) };
      },
      ais: ais ? (id, request, reply) => ais.ask(id, request, reply) : undefined,
      aisCancel: ais ? (id) => ais.cancel(id) : undefined,
      points: (trial, points, taus) => {
        const last = points[points.length - 1];
        this.study.add(trial, points, last?.ms ?? 0, last?.wallMs);
        if (taus) trial.taus = taus;
        this.bump();
      },
      device: (trial, gpu, notice, restart) => {
        this.study.device(trial, gpu, notice, restart);
        this.bump();
      },
      done: (trial, ms, error) => {
        this.study.finish(trial, ms, error);
        if (this.study.finished()) this.stopClock('done');
        this.bump();
      },
    });
  }

  private bump(): void {
    this.version += 1;
    this.changed();
  }

  private stopClock(status: StudyStatus): void {
    if (this.since !== null) this.ranMs += this.now() - this.since;
    this.since = null;
    this.status = status;
  }

  start(): void {
    if (this.status === 'running' || this.status === 'done') return;
    this.status = 'running';
    this.since = this.now();
    this.ais?.pause(false);
    this.startJob();
    this.pool.start();
    if (this.study.finished()) this.stopClock('done');
    this.bump();
  }

  pause(): void {
    if (this.status !== 'running') return;
    this.pool.pause();
    this.job?.pause();
    this.ais?.pause(true);
    this.stopClock('paused');
    this.bump();
  }

  /** Ends every worker (the study's numbers stay readable). */
  dispose(): void {
    for (const t of this.pool.dispose()) this.study.requeue(t);
    this.job?.dispose();
    this.job = null;
    for (const t of this.jobTrials) this.study.requeue(t);
    this.jobTrials = [];
    this.ais?.dispose();
    if (this.status === 'running') this.stopClock('paused');
  }

  /** Milliseconds the study has been running. */
  elapsedMs(): number {
    return this.ranMs + (this.since !== null ? this.now() - this.since : 0);
  }

  /** Trials under way. */
  get busy(): number {
    return this.pool.busy;
  }

  /** The study's line of its GPU job (studyJob.ts studyJobText), or null (no job). */
  jobText(): string | null {
    return studyJobText(this.jobState, this.jobFailed);
  }

  /** Offers every lane's trials to one GPU job (once; `gpuJob` only). */
  private startJob(): void {
    if (this.job) {
      this.job.start();
      return;
    }
    const g = this.gpuJob;
    if (!g || this.jobFailed !== null || this.study.held.size === 0) return;
    const lanes = [...this.study.held].map((lane) => {
      const trials = this.study.take(lane);
      this.jobTrials.push(...trials);
      return { lane, config: g.configs[lane], trials: trials.map((t) => t.index) };
    });
    const { dataset, source, seed, until, every } = g;
    this.job = new StudyJob(
      this.factory,
      { dataset, source, seed, until, every, lanes },
      {
        started: (gpu, taken, trials, refused) => {
          const took = new Set(taken);
          for (const lane of [...this.study.held]) if (!took.has(lane)) this.giveBack(lane, null);
          for (const t of this.jobTrials) this.study.device(t, gpu, null, false);
          const label = (lane: number) => this.study.plan.lanes[lane]?.label ?? `lane ${lane}`;
          this.jobState = { gpu, lanes: taken.length, trials, updates: 0, until, refused: refused.map((r) => ({ label: label(r.lane), why: r.why })) };
          this.resumePool();
          this.bump();
        },
        points: (lane, index, points) => {
          const t = this.study.trials[lane]?.[index];
          if (!t || !this.jobTrials.includes(t)) return;
          this.study.add(t, points, points[points.length - 1]?.ms ?? 0);
          this.bump();
        },
        progress: (updates) => {
          if (!this.jobState || this.jobState.updates === updates) return;
          this.jobState.updates = updates;
          this.bump();
        },
        done: (ms, error) => {
          this.job = null;
          if (error === null) {
            // The job ran to its end: its line says so whatever its last progress message said.
            if (this.jobState) this.jobState.updates = this.jobState.until;
            const share = ms / Math.max(1, this.jobTrials.length);
            for (const t of this.jobTrials) this.study.finish(t, share);
            this.jobTrials = [];
            if (this.study.finished()) this.stopClock('done');
          } else {
            this.jobFailed = error;
            const started = this.jobState !== null;
            const notice = started
              ? `The GPU job stopped (${error}): its trials run again on the CPU from update 0.`
              : `On the CPU: the trials could not run as one GPU job (${error}).`;
            for (const lane of [...this.study.held]) this.giveBack(lane, notice);
            this.resumePool();
          }
          this.bump();
        },
      },
    );
    this.job.start();
  }

  /** Lane `lane`'s trials go back to the trial workers: with a `notice` (the job failed), on
   * the CPU from update 0; without (the job did not take the lane), as any trial of the study. */
  private giveBack(lane: number, notice: string | null): void {
    this.study.held.delete(lane);
    const mine = this.jobTrials.filter((t) => t.lane === lane);
    this.jobTrials = this.jobTrials.filter((t) => t.lane !== lane);
    for (const t of mine) {
      if (notice !== null) {
        this.study.device(t, null, notice, true);
        this.onCpu.add(t);
      }
      this.study.requeue(t);
    }
  }

  /** The trial workers take the trials given back (while the study runs). */
  private resumePool(): void {
    if (this.status === 'running') this.pool.start();
  }

  /** Test hook: the GPU job's device fails; whether there was a job to fail. */
  loseJobGpu(): boolean {
    this.job?.loseGpu();
    return this.job !== null;
  }

  /** Test hook: the GPU of the trial under way with the fewest records fails (a device lost);
   * returns that trial (null: none). */
  loseGpu(): Trial | null {
    return this.pool.sendToBusy({ type: 'loseGpu' });
  }

  /** Test hook: the worker of the trial under way with the fewest records dies, by a panic of its core (`crash`)
   * or silently (`exit`, as the browser ending it would); returns that trial (null: none). */
  killWorker(how: 'crash' | 'exit'): Trial | null {
    return this.pool.sendToBusy({ type: how });
  }
}
