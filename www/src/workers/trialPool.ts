// The page's pool of trial workers (issue 9): a study's trials run one per worker at a time,
// as many workers as the machine has cores (the page's own thread only draws), each asking the
// study for its next trial as soon as it is free — so the trials go out in the study's order
// (trial-major, lanes interleaved) and every lane's band grows together. Pause holds every
// worker's trial where it is; a worker that breaks (a panic of its core) is replaced and its
// trial reported failed. DOM-free: the unit tests drive it with fake workers.
import type { WorkerFactory } from '../app/lane';
import type { Trial } from '../app/study';
import type { AisRequest, DataSource, FromWorker, LaneConfig, ToWorker, TrialMeasure, TrialRecord, TrialTaus } from '../protocol/messages';
import type { AisReply } from './studyAis';
import { type WorkerSlot, WorkerSlots } from './workerSlots';

/** One trial to run. */
export interface TrialJob {
  trial: Trial;
  config: LaneConfig;
  dataset: string;
  source: DataSource | null;
  /** The study's seed (the worker derives the trial's). */
  seed: number;
  until: number;
  /** `gpu`: on the browser's GPU (the lane's Compute put it there). */
  compute?: 'gpu';
  /** The study's measure at each checkpoint (absent: the records' exact ATLL). */
  measure?: TrialMeasure;
  /** A GPU trial measured by AIS whose checkpoints go to the study's AIS worker (studyAis.ts). */
  aisBatch?: boolean;
}

/** What the pool tells its study. */
export interface TrialPoolEvents {
  /** The next trial to run, or null when none is left. */
  next(): TrialJob | null;
  points(trial: Trial, points: TrialRecord[], taus?: TrialTaus): void;
  /** The trial ended (`error`: it failed). */
  done(trial: Trial, ms: number, error: string | null): void;
  /** Where the trial runs (`gpu`: the adapter; null: the CPU), why not where asked
   * (`notice`), and whether its records so far are dropped (`restart`). */
  device?(trial: Trial, gpu: string | null, notice: string | null, restart: boolean): void;
  /** Trial request `id` asks the study's AIS worker for a checkpoint's log-weights. */
  ais?(id: number, request: AisRequest, reply: AisReply): void;
  /** Trial request `id` ended: its questions to the AIS worker are of no use any more. */
  aisCancel?(id: number): void;
}

/** Trial workers for a machine with `cores` logical cores: one per core (the page's own
 * thread never computes, and leaving a core out left half of a 2-core machine idle for a whole
 * study), at least one, at most 16. */
export function trialWorkers(cores: number | undefined): number {
  const c = Math.floor(cores ?? 2) || 2;
  return Math.max(1, Math.min(16, c));
}

/** A trial under way on a worker: its request id and trial. */
interface Running {
  id: number;
  trial: Trial;
}

export class TrialPool {
  private readonly workers: WorkerSlots<Running>;
  private paused = true;
  private seq = 0;
  private disposed = false;

  constructor(
    factory: WorkerFactory,
    readonly size: number,
    private readonly events: TrialPoolEvents,
  ) {
    this.workers = new WorkerSlots<Running>(factory, size, 'trials', 'a trial worker', {
      message: (slot, msg) => this.receive(slot, msg),
      broken: (slot, message) => {
        if (slot.task) this.events.aisCancel?.(slot.task.id);
        if (slot.task) this.events.done(slot.task.trial, 0, message);
        this.pump();
      },
    });
  }

  /** Trials under way. */
  get busy(): number {
    return this.workers.busy;
  }

  /** Runs (or resumes) trials on every worker. */
  start(): void {
    if (this.disposed) return;
    this.paused = false;
    this.post({ type: 'trialPause', paused: false });
    this.pump();
  }

  /** Holds every trial where it is. */
  pause(): void {
    this.paused = true;
    this.post({ type: 'trialPause', paused: true });
  }

  private post(msg: { type: 'trialPause'; paused: boolean }): void {
    for (const s of this.workers.slots) if (s.task) s.worker.postMessage(msg);
  }

  /** Ends every worker; returns the trials that were under way (to run again from the start). */
  dispose(): Trial[] {
    this.disposed = true;
    for (const s of this.workers.slots) if (s.task) this.events.aisCancel?.(s.task.id);
    return this.workers.removeAll().flatMap((s) => (s.task ? [s.task.trial] : []));
  }

  /** Test hook: posts `msg` (e.g. `crash`, `exit`) to the worker of the trial under way with
   * the fewest records (the furthest from its end) and returns that trial (null: none). */
  sendToBusy(msg: ToWorker): Trial | null {
    let slot: WorkerSlot<Running> | null = null;
    for (const s of this.workers.slots) if (s.task && (!slot?.task || s.task.trial.points.length < slot.task.trial.points.length)) slot = s;
    slot?.worker.postMessage(msg);
    return slot?.task?.trial ?? null;
  }

  private pump(): void {
    while (!this.paused && !this.disposed) {
      if (!this.workers.hasRoom()) return;
      const job = this.events.next();
      if (!job) return;
      const slot = this.workers.take();
      this.seq += 1;
      slot.task = { id: this.seq, trial: job.trial };
      const { config, dataset, source, seed, until, trial, compute, measure, aisBatch } = job;
      slot.worker.postMessage({
        type: 'trial',
        id: this.seq,
        config,
        dataset,
        ...(source ? { source } : {}),
        seed,
        trial: trial.index,
        until,
        ...(compute ? { compute } : {}),
        ...(measure ? { measure } : {}),
        ...(aisBatch ? { aisBatch } : {}),
      });
    }
  }

  private receive(slot: WorkerSlot<Running>, msg: FromWorker): void {
    const job = slot.task;
    if (!job) return;
    if (msg.type === 'trialPoints' && msg.id === job.id) {
      this.events.points(job.trial, msg.points, msg.taus);
    } else if (msg.type === 'trialDevice' && msg.id === job.id) {
      this.events.device?.(job.trial, msg.gpu, msg.notice, msg.restart);
    } else if (msg.type === 'aisAsk' && msg.id === job.id) {
      const { id, k } = msg;
      const reply: AisReply = (logWeights, error) => {
        if (slot.task?.id === id) slot.worker.postMessage({ type: 'aisAnswer', id, k, logWeights, error });
      };
      if (this.events.ais) this.events.ais(id, msg.request, reply);
      else reply(null, 'the study has no AIS worker');
    } else if (msg.type === 'trialDone' && msg.id === job.id) {
      this.events.aisCancel?.(job.id);
      slot.task = null;
      if (msg.fatal) this.workers.remove(slot);
      this.events.done(job.trial, msg.ms, msg.error);
      this.pump();
    }
  }
}
