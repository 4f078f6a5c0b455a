// The page's pool of trial workers (issue 9): a study's trials run one per worker at a time,
// as many workers as the machine has cores less one (the page keeps one), each asking the
// study for its next trial as soon as it is free — so the trials go out in the study's order
// (trial-major, lanes interleaved) and every lane's band grows together. Pause holds every
// worker's trial where it is; a worker that breaks (a panic of its core) is replaced and its
// trial reported failed. DOM-free: the unit tests drive it with fake workers.
import type { WorkerFactory, WorkerLike } from './lane';
import type { DataSource, FromWorker, LaneConfig, TrialRecord, TrialTaus } from './protocol';
import type { Trial } from './study';

/** One trial to run. */
export interface TrialJob {
  trial: Trial;
  config: LaneConfig;
  dataset: string;
  source: DataSource | null;
  /** The study's seed (the worker derives the trial's). */
  seed: number;
  until: number;
}

/** What the pool tells its study. */
export interface TrialPoolEvents {
  /** The next trial to run, or null when none is left. */
  next(): TrialJob | null;
  points(trial: Trial, points: TrialRecord[], taus?: TrialTaus): void;
  /** The trial ended (`error`: it failed). */
  done(trial: Trial, ms: number, error: string | null): void;
}

/** Trial workers for a machine with `cores` logical cores: one per core, leaving one for the
 * page, at least one, at most 16. */
export function trialWorkers(cores: number | undefined): number {
  const c = Math.floor(cores ?? 2) || 2;
  return Math.max(1, Math.min(16, c - 1));
}

interface Slot {
  worker: WorkerLike;
  job: { id: number; trial: Trial } | null;
}

export class TrialPool {
  private readonly slots: Slot[] = [];
  private paused = true;
  private seq = 0;
  private made = 0;
  private disposed = false;

  constructor(
    private readonly factory: WorkerFactory,
    readonly size: number,
    private readonly events: TrialPoolEvents,
  ) {}

  /** Trials under way. */
  get busy(): number {
    return this.slots.filter((s) => s.job !== null).length;
  }

  /** Runs (or resumes) trials on every worker. */
  start(): void {
    if (this.disposed) return;
    this.paused = false;
    for (const s of this.slots) if (s.job) s.worker.postMessage({ type: 'trialPause', paused: false });
    this.pump();
  }

  /** Holds every trial where it is. */
  pause(): void {
    this.paused = true;
    for (const s of this.slots) if (s.job) s.worker.postMessage({ type: 'trialPause', paused: true });
  }

  /** Ends every worker; returns the trials that were under way (to run again from the start). */
  dispose(): Trial[] {
    this.disposed = true;
    const open: Trial[] = [];
    for (const s of this.slots.splice(0)) {
      if (s.job) open.push(s.job.trial);
      this.end(s);
    }
    return open;
  }

  private pump(): void {
    while (!this.paused && !this.disposed) {
      let slot = this.slots.find((s) => s.job === null);
      if (!slot && this.slots.length >= this.size) return;
      const job = this.events.next();
      if (!job) return;
      slot ??= this.spawn();
      this.seq += 1;
      slot.job = { id: this.seq, trial: job.trial };
      const { config, dataset, source, seed, until, trial } = job;
      slot.worker.postMessage({ type: 'trial', id: this.seq, config, dataset, ...(source ? { source } : {}), seed, trial: trial.index, until });
    }
  }

  private spawn(): Slot {
    this.made += 1;
    const slot: Slot = { worker: this.factory(`trials ${this.made}`), job: null };
    slot.worker.onmessage = (e: MessageEvent<FromWorker>) => this.receive(slot, e.data);
    slot.worker.onerror = (e: ErrorEvent) => {
      e.preventDefault?.();
      this.broken(slot, `a trial worker failed: ${e.message || 'unknown error'}`);
    };
    this.slots.push(slot);
    return slot;
  }

  private end(slot: Slot): void {
    slot.worker.onmessage = null;
    slot.worker.onerror = null;
    slot.worker.terminate();
  }

  private receive(slot: Slot, msg: FromWorker): void {
    if (msg.type === 'status' && msg.status === 'fatal') {
      this.broken(slot, msg.message ?? 'a trial worker failed');
      return;
    }
    const job = slot.job;
    if (!job) return;
    if (msg.type === 'trialPoints' && msg.id === job.id) {
      this.events.points(job.trial, msg.points, msg.taus);
    } else if (msg.type === 'trialDone' && msg.id === job.id) {
      slot.job = null;
      if (msg.fatal) {
        this.end(slot);
        this.slots.splice(this.slots.indexOf(slot), 1);
      }
      this.events.done(job.trial, msg.ms, msg.error);
      this.pump();
    }
  }

  /** A worker that broke: its trial fails, and a new worker takes the next trial. */
  private broken(slot: Slot, message: string): void {
    this.end(slot);
    this.slots.splice(this.slots.indexOf(slot), 1);
    if (slot.job) this.events.done(slot.job.trial, 0, message);
    this.pump();
  }
}
