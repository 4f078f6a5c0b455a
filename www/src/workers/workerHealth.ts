// A long-running worker (a lane's, or a study's trial worker), watched: a worker that is ended
// (by the browser, or by itself) or stuck in a computation gives no error event, it just goes
// silent. The watch pings it every `interval` ms (the worker answers at once, between its
// slices, even before its core loads); a ping left unanswered for `timeout` ms, and over at
// least two later ticks (a frozen or throttled tab delays the page's timer and the worker
// alike), ends the worker and reports it as an error event: the lane shows the message, what
// it kept and its "Restart lane" button (lane.ts, laneCard.ts); the study marks the trial that
// worker ran failed, keeps every record so far and goes on with a new worker (trialPool.ts);
// an evaluation worker's chunk fails its evaluation, and the lane trains on without that point
// (evalPool.ts). A worker asked to work on the GPU (`asksForGpu`) gets `gpuTimeout`: Chromium
// holds a worker's WebGPU calls while its GPU process is busy, and SwiftShader on a loaded
// two-core machine kept every GPU worker of a page silent for 12–26 s while it compiled the
// lanes' shaders and opened their devices (measured in the e2e tests) — alive all along.
import type { WorkerFactory, WorkerLike } from '../app/lane';
import { asksForGpu, type FromWorker, type ToWorker } from '../protocol/messages';

/** How often the page pings a lane's worker, and how long it waits for the answer (ms): a
 * worker on the CPU, and one that was asked to work on the GPU. */
export interface HealthSettings {
  interval: number;
  timeout: number;
  gpuTimeout: number;
}

/** Generous: a loaded machine may delay a busy worker's answer by seconds, never by ten; a
 * busy software GPU holds a GPU worker for tens of seconds, never for sixty. */
export const HEALTH: HealthSettings = { interval: 2000, timeout: 10_000, gpuTimeout: 60_000 };

/** The timer and clock the watch uses (injectable for the unit tests). */
export interface Clock {
  now(): number;
  every(ms: number, tick: () => void): () => void;
}

const realClock: Clock = {
  now: () => performance.now(),
  every: (ms, tick) => {
    const t = setInterval(tick, ms);
    return () => clearInterval(t);
  },
};

/** A worker whose silence becomes an error event (`onerror`); its `pong`s stay inside. */
export class WatchedWorker implements WorkerLike {
  onmessage: ((e: MessageEvent<FromWorker>) => void) | null = null;
  onerror: ((e: ErrorEvent) => void) | null = null;
  private ticks = 0;
  /** The unanswered pings by id (ids increase): when each was sent, and at which tick. */
  private waiting = new Map<number, { at: number; tick: number }>();
  private stop: (() => void) | null;
  /** Whether the worker was asked to work on the GPU (it keeps its device once opened). */
  private gpu = false;

  constructor(
    private readonly inner: WorkerLike,
    private readonly settings: HealthSettings = HEALTH,
    private readonly clock: Clock = realClock,
  ) {
    inner.onmessage = (e) => {
      const msg = e.data;
      if (msg.type === 'pong') {
        for (const id of this.waiting.keys()) if (id <= msg.id) this.waiting.delete(id);
        return;
      }
      this.onmessage?.(e);
    };
    inner.onerror = (e) => this.onerror?.(e);
    this.stop = clock.every(settings.interval, () => this.tick());
  }

  private tick(): void {
    this.ticks += 1;
    const oldest = this.waiting.values().next().value;
    if (oldest) {
      const timeout = this.gpu ? this.settings.gpuTimeout : this.settings.timeout;
      if (this.ticks - oldest.tick >= 2 && this.clock.now() - oldest.at > timeout) {
        this.end();
        const seconds = Math.round(timeout / 1000);
        this.onerror?.({ message: `it stopped answering (no reply in ${seconds} s): it was ended or is stuck` } as ErrorEvent);
        return;
      }
    }
    this.waiting.set(this.ticks, { at: this.clock.now(), tick: this.ticks });
    this.inner.postMessage({ type: 'ping', id: this.ticks });
  }

  postMessage(msg: ToWorker): void {
    if (asksForGpu(msg)) this.gpu = true;
    this.inner.postMessage(msg);
  }

  private end(): void {
    this.stop?.();
    this.stop = null;
    this.inner.onmessage = null;
    this.inner.onerror = null;
    this.inner.terminate();
  }

  terminate(): void {
    this.end();
  }
}

/** Workers made by `factory`, each watched. */
export function watched(factory: WorkerFactory, settings: HealthSettings = HEALTH, clock: Clock = realClock): WorkerFactory {
  return (name) => new WatchedWorker(factory(name), settings, clock);
}
