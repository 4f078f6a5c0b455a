// A study under way: the Study (study.ts: trials, bands, progress) and the pool of trial
// workers (trialPool.ts) that runs it, with its status (ready, running, paused, done) and the
// time it has been running. DOM-free; the App makes one when the user starts a study and drops
// it when anything it depends on changes.

import { StudyAis } from '../workers/studyAis';
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
  /** Milliseconds run before the current stretch, and when the current stretch began. */
  private ranMs = 0;
  private since: number | null = null;

  constructor(
    plan: StudyPlan,
    job: (trial: Trial) => Omit<TrialJob, 'trial'>,
    factory: WorkerFactory,
    readonly workers: number,
    private readonly changed: () => void,
    private readonly now: () => number = () => performance.now(),
    batchAis = false,
  ) {
    this.study = new Study(plan);
    const ais = batchAis ? new StudyAis(factory, () => this.bump()) : null;
    this.ais = ais;
    this.pool = new TrialPool(factory, workers, {
      next: () => {
        const t = this.study.next();
        if (!t) return null;
        const j = job(t);
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
    this.pool.start();
    if (this.study.finished()) this.stopClock('done');
    this.bump();
  }

  pause(): void {
    if (this.status !== 'running') return;
    this.pool.pause();
    this.ais?.pause(true);
    this.stopClock('paused');
    this.bump();
  }

  /** Ends every worker (the study's numbers stay readable). */
  dispose(): void {
    for (const t of this.pool.dispose()) this.study.requeue(t);
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
