// The study's AIS worker's logic (issue 30), free of worker globals so the unit tests drive it
// with a fake core: a GPU study's trials send their checkpoints' models here (relayed by the
// page, aisRequest), and every waiting request of one shape (size, particles, β) is annealed as
// one batch on this worker's GPU (the core's WasmAisBatch: rbm_gpu's Anneal::batch, a bounded
// number of β steps per slice, never waiting), as `rbm reproduce --device gpu` batches its
// trials' requests (rbm_gpu::measure::GpuLogZ). A model's log-weights in a batch are, bit for
// bit, those of a batch of that model alone — what a trial anneals itself without this worker —
// so which requests share a batch (a matter of timing) changes no number of the study.
//
// A batch starts once `GATHER_MS` have passed since the oldest waiting request arrived (so
// trials reaching their checkpoints at about the same time share it) or as soon as the waiting
// requests of its shape fill it; it holds at most what the GPU binds (`room`, at most 64 models).
// A failure (a lost device, a refused limit) answers every request of the batch, and every later
// one, with the reason: each trial then anneals its checkpoint itself.
import type { AisProgress } from '../generated/core';
import type { AisBatchStatus, AisRequest, FromWorker } from '../protocol/messages';
import { isErrorInfo, nextChunk } from '../protocol/messages';

/** Wall time a request waits for others to join its batch. */
export const GATHER_MS = 250;

/** Target wall time of one slice of a batch (its β steps on the GPU and their fence). */
export const AIS_SLICE_MS = 100;

/** The core's batch of AIS runs (WasmAisBatch). */
export interface AisBatchRun {
  add(m: number, n: number, w: Float32Array, b: Float32Array, c: Float32Array, base: Float32Array, seed: number): void;
  /** Up to `maxSteps` more β steps of every model (none while the GPU is behind). Throws ErrorInfo. */
  step(maxSteps: number): AisProgress;
  logWeights(i: number): Float64Array;
  loseGpuForTest?(): void;
  free(): void;
}

/** The part of the core the AIS worker uses (its GPU opened before). */
export interface AisBatchCore {
  /** Models of m×n with `particles` chains one batch holds on this GPU. */
  room(m: number, n: number, particles: number): number;
  newBatch(particles: number, betas: number): AisBatchRun;
}

export interface AisBatchHost {
  post(msg: FromWorker, transfer?: Transferable[]): void;
  now(): number;
  /** Runs `fn` soon (`idle`: nothing to do but wait for the GPU or for requests, `ms` later). */
  schedule(fn: () => void, ms: number): void;
}

interface Waiting {
  key: number;
  request: AisRequest;
  since: number;
}

interface Running {
  run: AisBatchRun;
  members: Waiting[];
  /** Keys of members whose trials no longer want the answer. */
  cancelled: Set<number>;
  chunk: number;
  /** β steps recorded so far, and when the latest steps were recorded. */
  done: number;
  total: number;
  since: number;
}

/** Requests of one shape can share a batch. */
export function shapeOf(r: AisRequest): string {
  return `${r.m}x${r.n}/${r.particles}/${r.betas}`;
}

function message(e: unknown): string {
  if (isErrorInfo(e)) return e.message;
  return e instanceof Error ? e.message : String(e);
}

export class AisBatcher {
  private waiting: Waiting[] = [];
  private running: Running | null = null;
  private failed: string | null = null;
  private paused = false;
  /** Test hook: the next batch's GPU fails as it starts. */
  private loseNext = false;
  /** The slice scheduled next (null: none). */
  private next: { at: number } | null = null;
  /** Models in each batch run so far, in order. */
  readonly batches: number[] = [];

  constructor(
    private readonly core: AisBatchCore,
    private readonly host: AisBatchHost,
    private readonly gatherMs = GATHER_MS,
  ) {}

  /** A request to anneal (answered by `aisResult` with `key`). */
  add(key: number, request: AisRequest): void {
    if (this.failed !== null) {
      this.answer(key, null, this.failed);
      return;
    }
    this.waiting.push({ key, request, since: this.host.now() });
    this.report();
    this.kick(0);
  }

  /** Request `key` is of no use any more: dropped if waiting; if in the batch under way, its
   * answer is dropped, and the batch too once no member wants its answer. */
  cancel(key: number): void {
    this.waiting = this.waiting.filter((w) => w.key !== key);
    const r = this.running;
    if (r?.members.some((m) => m.key === key)) {
      r.cancelled.add(key);
      if (r.cancelled.size === r.members.length) {
        r.run.free();
        this.running = null;
        this.kick(0);
      }
    }
    this.report();
  }

  pause(paused: boolean): void {
    this.paused = paused;
    if (paused) this.next = null;
    this.kick(0);
  }

  /** Test hook: the GPU of the batch under way fails (none under way: the next batch's). */
  loseGpuForTest(): void {
    if (this.running) this.running.run.loseGpuForTest?.();
    else this.loseNext = true;
  }

  /** Where it stands. */
  status(): AisBatchStatus {
    const r = this.running;
    return {
      models: r?.members.length ?? 0,
      done: r?.done ?? 0,
      total: r?.total ?? 0,
      batches: [...this.batches],
      waiting: this.waiting.length,
      failed: this.failed,
    };
  }

  private report(): void {
    this.host.post({ type: 'aisStatus', status: this.status() });
  }

  private answer(key: number, logWeights: Float64Array | null, error: string | null): void {
    this.host.post({ type: 'aisResult', key, logWeights, error }, logWeights ? [logWeights.buffer] : []);
  }

  /** Schedules the next slice in `ms` (replacing a later one already scheduled: a request that
   * fills a gathering batch starts it at once). */
  private kick(ms: number): void {
    if (this.paused || (!this.running && !this.waiting.length)) return;
    const at = this.host.now() + ms;
    if (this.next !== null && this.next.at <= at) return;
    const mine = { at };
    this.next = mine;
    this.host.schedule(() => {
      if (this.next !== mine) return; // replaced by an earlier one
      this.next = null;
      this.tick();
    }, ms);
  }

  /** One slice: a batch started when its requests have gathered, or a few more β steps of the
   * batch under way, its answers once it is done. */
  tick(): void {
    if (this.paused) return;
    try {
      if (!this.running && !this.start()) return;
      this.stepRunning();
    } catch (e) {
      this.fail(message(e));
    }
  }

  /** Starts a batch of the oldest request's shape once it has waited `gatherMs` or its shape
   * fills a batch; false (and a later look) while it gathers. */
  private start(): boolean {
    const first = this.waiting[0];
    if (!first) return false;
    const want = shapeOf(first.request);
    const { m, n, particles, betas } = first.request;
    const room = Math.max(1, Math.floor(this.core.room(m, n, particles)));
    const same = this.waiting.filter((w) => shapeOf(w.request) === want);
    const waited = this.host.now() - first.since;
    if (same.length < room && waited < this.gatherMs) {
      this.kick(Math.max(1, this.gatherMs - waited));
      return false;
    }
    const members = same.slice(0, room);
    this.waiting = this.waiting.filter((w) => !members.includes(w));
    const run = this.core.newBatch(particles, betas);
    const kept: Waiting[] = [];
    for (const w of members) {
      const r = w.request;
      try {
        run.add(r.m, r.n, r.w, r.b, r.c, r.base, r.seed);
        kept.push(w);
      } catch (e) {
        // A request the core refuses (sizes, numbers) fails alone.
        this.answer(w.key, null, message(e));
      }
    }
    if (!kept.length) {
      run.free();
      this.kick(0);
      return false;
    }
    this.running = { run, members: kept, cancelled: new Set(), chunk: 8, done: 0, total: betas, since: this.host.now() };
    if (this.loseNext) {
      this.loseNext = false;
      run.loseGpuForTest?.();
    }
    this.report();
    return true;
  }

  private stepRunning(): void {
    const r = this.running;
    if (!r) return;
    const p = r.run.step(r.chunk);
    if (p.doneSteps > r.done && !p.done) {
      // The GPU did the previous steps: size the next by the time they took.
      const now = this.host.now();
      r.chunk = nextChunk(r.chunk, now - r.since, AIS_SLICE_MS);
      r.since = now;
      r.done = p.doneSteps;
      r.total = p.totalSteps;
      this.report();
    }
    if (!p.done) {
      this.kick(1);
      return;
    }
    for (let i = 0; i < r.members.length; i++) {
      const key = r.members[i].key;
      if (!r.cancelled.has(key)) this.answer(key, r.run.logWeights(i), null);
    }
    r.run.free();
    this.batches.push(r.members.length);
    this.running = null;
    this.report();
    this.kick(0);
  }

  /** The GPU failed (`why`): every request of the batch, waiting, and to come is answered so. */
  private fail(why: string): void {
    const text = `the study's AIS worker failed (${why})`;
    this.failed = text;
    const r = this.running;
    this.running = null;
    for (const m of r?.members ?? []) if (!r?.cancelled.has(m.key)) this.answer(m.key, null, text);
    try {
      r?.run.free();
    } catch {
      // a broken batch may not free
    }
    for (const w of this.waiting.splice(0)) this.answer(w.key, null, text);
    this.report();
  }
}
