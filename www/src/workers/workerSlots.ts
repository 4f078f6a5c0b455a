// The worker lifecycle shared by the page's pools (trialPool.ts, evalPool.ts): workers made on
// demand, each holding at most one task; a worker that breaks (an uncaught error, or the core's
// `fatal` status after a panic) is terminated and dropped before its pool hears of it, so the
// pool only decides what becomes of the task and whether to make a new worker. DOM-free.
import type { WorkerFactory, WorkerLike } from '../app/lane';
import type { FromWorker } from '../protocol/messages';

/** A worker and the task it is running (null: idle). */
export interface WorkerSlot<T> {
  worker: WorkerLike;
  task: T | null;
}

/** What a pool does with its workers' messages and breakdowns. */
export interface SlotHandlers<T> {
  /** A message from a working worker (never the `fatal` status: that is `broken`). */
  message(slot: WorkerSlot<T>, msg: FromWorker): void;
  /** The worker broke and is gone already; `slot.task` is what it was running. */
  broken(slot: WorkerSlot<T>, message: string): void;
}

export class WorkerSlots<T> {
  readonly slots: WorkerSlot<T>[] = [];
  private made = 0;

  /** At most `size` workers, named "`name` 1", "`name` 2", …; `what` names one in error
   * messages ("a trial worker"). */
  constructor(
    private readonly factory: WorkerFactory,
    readonly size: number,
    private readonly name: string,
    private readonly what: string,
    private readonly handlers: SlotHandlers<T>,
  ) {}

  /** Whether a task could start now: a worker is idle or fewer than `size` exist. */
  hasRoom(): boolean {
    return this.slots.length < this.size || this.slots.some((s) => s.task === null);
  }

  /** An idle worker, or a new one (call when `hasRoom()`). */
  take(): WorkerSlot<T> {
    return this.slots.find((s) => s.task === null) ?? this.spawn();
  }

  /** Workers with a task. */
  get busy(): number {
    return this.slots.filter((s) => s.task !== null).length;
  }

  private spawn(): WorkerSlot<T> {
    this.made += 1;
    const slot: WorkerSlot<T> = { worker: this.factory(`${this.name} ${this.made}`), task: null };
    slot.worker.onmessage = (e: MessageEvent<FromWorker>) => {
      const msg = e.data;
      if (msg.type === 'status' && msg.status === 'fatal') this.break(slot, msg.message ?? `${this.what} failed`);
      else this.handlers.message(slot, msg);
    };
    slot.worker.onerror = (e: ErrorEvent) => {
      e.preventDefault?.();
      this.break(slot, `${this.what} failed: ${e.message || 'unknown error'}`);
    };
    this.slots.push(slot);
    return slot;
  }

  /** Terminates `slot`'s worker and drops it. */
  remove(slot: WorkerSlot<T>): void {
    slot.worker.onmessage = null;
    slot.worker.onerror = null;
    slot.worker.terminate();
    const at = this.slots.indexOf(slot);
    if (at >= 0) this.slots.splice(at, 1);
  }

  /** Terminates every worker; returns their slots (with the tasks they were running). */
  removeAll(): WorkerSlot<T>[] {
    const all = [...this.slots];
    for (const s of all) this.remove(s);
    return all;
  }

  private break(slot: WorkerSlot<T>, message: string): void {
    this.remove(slot);
    this.handlers.broken(slot, message);
  }
}
