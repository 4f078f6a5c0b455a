// The page's side of a GPU study's AIS worker (issue 30): one worker per study (the lanes'
// worker script, which becomes the AIS worker on its first `aisRequest`: aisBatcher.ts), holding
// one GPU device. The study's trial workers ask it for their checkpoints' log-weights (`aisAsk`);
// the page only relays the messages (no computation on its thread) and keeps which trial waits
// for which answer, so that a trial never hangs: when the AIS worker dies (an error event, or
// silence its health watch turns into one) every waiting trial is answered with the reason, and
// anneals its checkpoint itself — the same numbers, since a batch gives each model what a batch
// of that model alone gives. Stop ends the worker, and with it every batch under way. DOM-free:
// the unit tests drive it with a fake worker.
import type { WorkerFactory, WorkerLike } from '../app/lane';
import type { AisBatchStatus, AisRequest, FromWorker } from '../protocol/messages';

/** How an answer reaches its trial: the log-weights, or why there are none. */
export type AisReply = (logWeights: Float64Array | null, error: string | null) => void;

interface Asked {
  /** The trial's request id in the pool (to cancel it when the trial ends). */
  owner: number;
  reply: AisReply;
}

export class StudyAis {
  private worker: WorkerLike | null = null;
  private seq = 0;
  private readonly asked = new Map<number, Asked>();
  private paused = false;
  private disposed = false;
  /** The AIS worker's latest status (null: none yet). */
  status: AisBatchStatus | null = null;
  /** Why the AIS worker is gone (null: it is not): every later request is answered so. */
  lost: string | null = null;

  constructor(
    private readonly factory: WorkerFactory,
    private readonly changed: () => void,
  ) {}

  /** Requests waiting for their answers. */
  get waiting(): number {
    return this.asked.size;
  }

  /** Asks the AIS worker to anneal `request` for trial request `owner`; `reply` gets the answer
   * (at once where the AIS worker is gone). */
  ask(owner: number, request: AisRequest, reply: AisReply): void {
    const why = this.lost ?? (this.disposed ? "the study's AIS worker was stopped" : null);
    if (why !== null) {
      reply(null, why);
      return;
    }
    const w = this.spawn();
    this.seq += 1;
    this.asked.set(this.seq, { owner, reply });
    w.postMessage({ type: 'aisRequest', key: this.seq, request });
  }

  /** Trial request `owner` ended: its waiting requests are of no use any more. */
  cancel(owner: number): void {
    for (const [key, a] of [...this.asked]) {
      if (a.owner !== owner) continue;
      this.asked.delete(key);
      this.worker?.postMessage({ type: 'aisCancel', key });
    }
  }

  pause(paused: boolean): void {
    this.paused = paused;
    this.worker?.postMessage({ type: 'aisPause', paused });
  }

  /** Test hook: the AIS worker's GPU fails (as a lost device): in the batch under way, or the
   * next one (the worker made first if need be). */
  loseGpu(): void {
    if (this.lost === null && !this.disposed) this.spawn().postMessage({ type: 'aisLoseGpu' });
  }

  /** Ends the AIS worker and its batches (a study's Stop); no answer comes after. */
  dispose(): void {
    this.disposed = true;
    this.asked.clear();
    this.worker?.terminate();
    this.worker = null;
  }

  private spawn(): WorkerLike {
    if (this.worker) return this.worker;
    const w = this.factory('study AIS');
    w.onmessage = (e) => this.receive(e.data);
    w.onerror = (e) => {
      e.preventDefault?.();
      this.die(e.message || 'it stopped');
    };
    if (this.paused) w.postMessage({ type: 'aisPause', paused: true });
    this.worker = w;
    return w;
  }

  private receive(msg: FromWorker): void {
    if (msg.type === 'aisResult') {
      const a = this.asked.get(msg.key);
      if (!a) return;
      this.asked.delete(msg.key);
      a.reply(msg.logWeights, msg.error);
    } else if (msg.type === 'aisStatus') {
      this.status = msg.status;
      this.changed();
    } else if (msg.type === 'status' && msg.status === 'fatal') {
      this.die(msg.message ?? 'its core did not load');
    }
  }

  /** The AIS worker is gone (`why`): every waiting trial anneals its checkpoint itself. */
  private die(why: string): void {
    this.lost = `the study's AIS worker stopped (${why})`;
    this.worker?.terminate();
    this.worker = null;
    const asked = [...this.asked.values()];
    this.asked.clear();
    for (const a of asked) a.reply(null, this.lost);
    this.changed();
  }
}

/** What the study's line says of its AIS worker (null: nothing yet): the batch under way and
 * its β steps, the batches so far, or why it failed and what the trials do instead. */
export function studyAisText(status: AisBatchStatus | null, lost: string | null): string | null {
  const failed = lost ?? status?.failed ?? null;
  if (failed !== null) return `AIS: ${failed}; each trial anneals its checkpoints on its own GPU (the same numbers, later).`;
  if (!status) return null;
  const n = status.batches.length;
  const models = status.batches.reduce((a, b) => a + b, 0);
  const past = n ? `${n} batch${n === 1 ? '' : 'es'} of ${models} checkpoint model${models === 1 ? '' : 's'} so far` : 'no batch finished yet';
  const now = status.models
    ? `annealing ${status.models} model${status.models === 1 ? '' : 's'} at once on the GPU, β step ${status.done.toLocaleString('en')} of ${status.total.toLocaleString('en')}`
    : status.waiting
      ? `${status.waiting} checkpoint model${status.waiting === 1 ? '' : 's'} gathering for a batch`
      : 'waiting for checkpoints';
  return `AIS in batches (the study's AIS worker): ${now}; ${past}.`;
}
