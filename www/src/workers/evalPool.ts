// The page's pool of exact-evaluation workers (issue 7). A lane whose smaller layer is above
// 20 units (Tieleman 2008's 784×25: 2^25 hidden states per point) sends the model of each
// record here instead of enumerating inside its training slice. The pool splits the Gray-code
// enumeration's blocks (2^16 states each, docs/algorithms.md §2) into chunks over its workers,
// gathers each block's partial sum and hands all of them back in block order; the lane merges
// them with the core (`finishExact`) to the bits of the core's one-thread evaluation, whatever
// the split. Jobs are served first come, first served; one model asked for by several lanes (the
// lanes of a preset start from the same one) is enumerated once for all of them. A job is
// cancelled when no lane wants it any more: chunks under way finish and are dropped.
// DOM-free: the unit tests drive it with fake workers.
import type { WorkerFactory } from '../app/lane';
import type { FromWorker } from '../protocol/messages';
import { type WorkerSlot, WorkerSlots } from './workerSlots';

/** What a lane hears about its evaluation. */
export interface EvalEvents {
  /** Blocks done of `total` (also once at submission), and how many jobs are ahead of this one
   * in the queue while none of its blocks has been handed out (0 once they are). */
  progress(done: number, total: number, ahead: number): void;
  /** Every block's [max, sum], in block order. */
  done(parts: Float64Array): void;
  /** The evaluation could not be done (a worker failed). */
  failed(message: string): void;
}

/** A lane's hold on a job. */
export interface EvalTicket {
  /** This lane no longer wants the result (the job stops when no lane does). */
  cancel(): void;
}

/** Blocks per message: 8 × 2^16 states, about a quarter of a second on 784 visible units in
 * wasm, so cancelling and progress answer quickly and the workers share the work evenly. */
export const CHUNK_BLOCKS = 8;

/** Evaluation workers for a machine with `cores` logical cores (the lanes' own workers wait
 * while their points are evaluated): all cores, at least 1, at most 4. */
export function poolSize(cores: number | undefined): number {
  return Math.max(1, Math.min(4, Math.floor(cores ?? 2) || 2));
}

interface Job {
  key: number;
  model: ArrayBuffer;
  blocks: number;
  /** The next block to hand out. */
  next: number;
  /** Blocks whose partial sums are in. */
  done: number;
  parts: Float64Array;
  subscribers: Set<EvalEvents>;
  /** Jobs ahead of it as last told to its subscribers. */
  ahead: number;
}

/** Blocks `from`..`to` of a job, under way on a worker. */
interface Chunk {
  id: number;
  job: Job;
  from: number;
  to: number;
}

/** FNV-1a (32 bits) of a model's bytes: a quick key; equal keys are then compared byte by byte. */
function fnv(bytes: Uint8Array): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < bytes.length; i++) h = Math.imul(h ^ bytes[i], 0x01000193);
  return h >>> 0;
}

function sameBytes(a: ArrayBuffer, b: ArrayBuffer): boolean {
  if (a.byteLength !== b.byteLength) return false;
  const x = new Uint8Array(a);
  const y = new Uint8Array(b);
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
  return true;
}

export class EvalPool {
  private readonly workers: WorkerSlots<Chunk>;
  private queue: Job[] = [];
  private seq = 0;

  constructor(
    factory: WorkerFactory,
    readonly size: number,
  ) {
    this.workers = new WorkerSlots<Chunk>(factory, size, 'exact evaluation', 'an evaluation worker', {
      message: (slot, msg) => this.receive(slot, msg),
      // The chunk's job fails; the worker is replaced when work waits.
      broken: (slot, message) => {
        if (slot.task && this.queue.includes(slot.task.job)) this.fail(slot.task.job, message);
        this.pump();
      },
    });
  }

  /** Evaluates the exact log Z of `model` (binary model bytes) over its `blocks` blocks. */
  submit(model: ArrayBuffer, blocks: number, events: EvalEvents): EvalTicket {
    const key = fnv(new Uint8Array(model));
    let job = this.queue.find((j) => j.key === key && j.blocks === blocks && sameBytes(j.model, model));
    if (!job) {
      job = { key, model, blocks, next: 0, done: 0, parts: new Float64Array(2 * blocks), subscribers: new Set(), ahead: 0 };
      this.queue.push(job);
      job.ahead = this.aheadOf(job);
    }
    const held = job;
    held.subscribers.add(events);
    events.progress(held.done, held.blocks, held.ahead);
    if (held.blocks === 0) this.complete(held);
    this.pump();
    return {
      cancel: () => {
        if (held.subscribers.delete(events) && held.subscribers.size === 0) {
          this.queue = this.queue.filter((j) => j !== held);
          this.announce();
        }
      },
    };
  }

  /** Jobs ahead of `job` while none of its blocks is handed out: the unfinished ones before it. */
  private aheadOf(job: Job): number {
    return job.next > 0 ? 0 : Math.max(0, this.queue.indexOf(job));
  }

  /** Tells the subscribers of every job whose place in the queue changed where it stands. */
  private announce(): void {
    for (const job of this.queue) {
      const ahead = this.aheadOf(job);
      if (ahead === job.ahead) continue;
      job.ahead = ahead;
      for (const e of job.subscribers) e.progress(job.done, job.blocks, ahead);
    }
  }

  /** Jobs waiting or under way. */
  get pending(): number {
    return this.queue.length;
  }

  /** Ends every worker (the pool makes new ones if it gets work again). */
  dispose(): void {
    this.workers.removeAll();
    for (const job of this.queue.splice(0)) for (const e of job.subscribers) e.failed('the evaluation pool was closed');
  }

  /** Hands a chunk to every idle worker, making workers (up to `size`) while work waits. */
  private pump(): void {
    for (;;) {
      const job = this.queue.find((j) => j.next < j.blocks);
      if (!job || !this.workers.hasRoom()) {
        this.announce();
        return;
      }
      const slot = this.workers.take();
      const from = job.next;
      const to = Math.min(job.blocks, from + CHUNK_BLOCKS);
      job.next = to;
      this.seq += 1;
      slot.task = { id: this.seq, job, from, to };
      slot.worker.postMessage({ type: 'logz', id: this.seq, model: job.model, from, to });
    }
  }

  private receive(slot: WorkerSlot<Chunk>, msg: FromWorker): void {
    const chunk = slot.task;
    if ((msg.type !== 'logzParts' && msg.type !== 'logzFailed') || !chunk || msg.id !== chunk.id) return;
    slot.task = null;
    const job = chunk.job;
    if (this.queue.includes(job)) {
      if (msg.type === 'logzFailed') {
        this.fail(job, msg.message);
      } else {
        job.parts.set(msg.parts, 2 * chunk.from);
        job.done += chunk.to - chunk.from;
        if (job.done === job.blocks) this.complete(job);
        else for (const e of job.subscribers) e.progress(job.done, job.blocks, 0);
      }
    }
    this.pump();
  }

  private fail(job: Job, message: string): void {
    this.queue = this.queue.filter((j) => j !== job);
    for (const e of job.subscribers) e.failed(message);
    this.announce();
  }

  private complete(job: Job): void {
    this.queue = this.queue.filter((j) => j !== job);
    for (const e of job.subscribers) {
      e.progress(job.blocks, job.blocks, 0);
      e.done(job.parts);
    }
  }
}
