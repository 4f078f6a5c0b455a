// The page's side of a study's GPU job (issue 30: "a study's trials run as one batched GPU
// job"): one worker (the lanes' worker script, which becomes a job worker on `studyJob`:
// studyJobRunner.ts) that trains the trials of the study's lanes that one job runs, together on
// one GPU. The page only relays: the job's start (which lanes it took, and why not the others),
// its trials' records, its end — or its failure, which the study turns into its trials running
// again on the CPU, so a study never hangs on a lost GPU: a worker that dies (an error event, a
// core that did not load) is a failure too. Stop ends the worker. DOM-free: the unit tests drive
// it with a fake worker.
import type { WorkerFactory, WorkerLike } from '../app/lane';
import type { DataSource, FromWorker, StudyJobLane, TrialRecord } from '../protocol/messages';

/** What a study asks of its job. */
export interface StudyJobRequest {
  dataset: string;
  source: DataSource | null;
  seed: number;
  until: number;
  every: number;
  lanes: StudyJobLane[];
}

/** What the job tells its study. */
export interface StudyJobEvents {
  /** The job runs the trials of `lanes` (`trials` in all) on adapter `gpu`; `refused`: the
   * request's other lanes and why. */
  started(gpu: string, lanes: number[], trials: number, refused: { lane: number; why: string }[]): void;
  points(lane: number, trial: number, points: TrialRecord[]): void;
  /** Every checkpoint updated so far. */
  progress?(updates: number): void;
  /** The job ended (`error` null) or failed (`error`: why). */
  done(ms: number, error: string | null): void;
}

/** What the study's line says of its job: how many trials of how many lanes train together on
 * which GPU, how far they are, and which lanes run trial by trial instead (and why). */
export function studyJobText(
  job: { gpu: string; lanes: number; trials: number; updates: number; until: number; refused: { label: string; why: string }[] } | null,
  failed: string | null,
): string | null {
  if (failed !== null) return `GPU job: ${failed}; its trials run again on the CPU, trial by trial.`;
  if (!job) return null;
  const reasons = job.refused.map((r) => `${r.label} (${r.why})`).join('; ');
  if (job.trials === 0) return `No lane runs as one GPU job; every trial trains on its own: ${reasons}.`;
  const trials = `${job.trials} trial${job.trials === 1 ? '' : 's'}`;
  const lanes = `${job.lanes} lane${job.lanes === 1 ? '' : 's'}`;
  const where = `${trials} of ${lanes} train together as one GPU job on ${job.gpu}`;
  const at = `, update ${job.updates.toLocaleString('en')} of ${job.until.toLocaleString('en')}`;
  const others = job.refused.length ? ` Trial by trial instead: ${reasons}.` : '';
  return `${where}${at}.${others}`;
}

export class StudyJob {
  private worker: WorkerLike | null = null;
  private readonly id = 1;
  private paused = false;
  private ended = false;

  constructor(
    private readonly factory: WorkerFactory,
    private readonly request: StudyJobRequest,
    private readonly events: StudyJobEvents,
  ) {}

  /** Starts the job (the first time) or resumes it. */
  start(): void {
    if (this.ended) return;
    this.paused = false;
    if (this.worker) {
      this.worker.postMessage({ type: 'studyJobPause', paused: false });
      return;
    }
    const w = this.factory('study GPU job');
    w.onmessage = (e) => this.receive(e.data);
    w.onerror = (e) => {
      e.preventDefault?.();
      this.fail(e.message || 'its worker stopped');
    };
    this.worker = w;
    const { dataset, source, seed, until, every, lanes } = this.request;
    w.postMessage({ type: 'studyJob', id: this.id, dataset, ...(source ? { source } : {}), seed, until, every, lanes });
  }

  /** Holds the job where it is. */
  pause(): void {
    this.paused = true;
    this.worker?.postMessage({ type: 'studyJobPause', paused: true });
  }

  /** Whether the job is held. */
  get held(): boolean {
    return this.paused;
  }

  /** Test hook: the job's GPU fails (a lost device). */
  loseGpu(): void {
    this.worker?.postMessage({ type: 'studyJobLoseGpu' });
  }

  /** Ends the worker and the job (a study's Stop); nothing is told after. */
  dispose(): void {
    this.ended = true;
    this.worker?.terminate();
    this.worker = null;
  }

  private receive(msg: FromWorker): void {
    if (this.ended) return;
    if (msg.type === 'studyJobStarted' && msg.id === this.id) {
      this.events.started(msg.gpu, msg.lanes, msg.trials, msg.refused);
    } else if (msg.type === 'studyJobPoints' && msg.id === this.id) {
      for (const t of msg.trials) if (t.points.length) this.events.points(t.lane, t.trial, t.points);
      this.events.progress?.(msg.updates);
    } else if (msg.type === 'studyJobDone' && msg.id === this.id) {
      this.end(msg.ms, msg.error);
    } else if (msg.type === 'status' && msg.status === 'fatal') {
      this.fail(msg.message ?? 'its core did not load');
    }
  }

  private fail(why: string): void {
    this.end(0, why);
  }

  private end(ms: number, error: string | null): void {
    if (this.ended) return;
    this.ended = true;
    this.worker?.terminate();
    this.worker = null;
    this.events.done(ms, error);
  }
}
