import { beforeEach, describe, expect, it } from 'vitest';
import type {
  AisEstimate,
  AisProgress,
  ChainResult,
  CoreRecord,
  ErrorInfo,
  ExactResult,
  GradResult,
  LoadedSet,
  MixingResult,
  TracedSlice,
} from '../src/generated/core';
import { type DataSource, type FromWorker, type LaneConfig, type ToWorker, TURN_MS } from '../src/protocol/messages';
import { type CoreStepped, hiddenNorms } from '../src/workers/analyses';
import { type Core, type CoreEstimate, type CoreLane, type Host, LaneRunner, type Slice } from '../src/workers/runner';

let clock: number;

/** Every call the fake core gets, in order: training slices and estimate steps. */
let trace: string[];

/** A fake AIS/RAISE run: 25 chains per block, `betas − 1` steps each, 0.01 ms per step. */
class FakeEstimate implements CoreEstimate {
  done = 0;
  freed = false;
  readonly total: number;
  constructor(
    readonly reverse: boolean,
    readonly particles: number,
    readonly betas: number,
    readonly iter: number,
  ) {
    this.total = Math.ceil(particles / 25) * (betas - 1);
  }
  step(maxSteps: number): AisProgress {
    if (this.freed) throw new Error('used after free');
    const n = Math.min(Math.max(1, maxSteps), this.total - this.done);
    this.done += n;
    clock += 0.01 * n;
    trace.push(this.reverse ? 'raise' : 'ais');
    return { done: this.done === this.total, doneSteps: this.done, totalSteps: this.total };
  }
  result(): AisEstimate {
    if (this.done < this.total) throw new Error('not done');
    const atll = this.reverse ? -6 : -4;
    return {
      log_z: 1,
      log_z_lo: 0.9,
      log_z_hi: 1.1,
      atll,
      atll_lo: atll - 0.5,
      atll_hi: atll + 0.5,
      method: this.reverse ? 'raise' : 'ais',
      particles: this.particles,
      betas: this.betas,
      seed: 1,
      rows: 10,
      base_log_z: 0,
      thresholded: false,
      ess: this.reverse ? null : 50,
      iter: this.iter,
      dataset: 'bas4',
      gpu: null,
    };
  }
  free() {
    this.freed = true;
  }
}

/** A fake chain walk or gradient estimate: `total` steps, 0.02 ms each; its result names the
 * update it was taken at. */
class FakeStepped<R> implements CoreStepped<R> {
  done = 0;
  freed = false;
  constructor(
    readonly total: number,
    private readonly make: (done: number) => R,
  ) {}
  step(maxSteps: number): AisProgress {
    if (this.freed) throw new Error('used after free');
    const n = Math.min(Math.max(1, maxSteps), this.total - this.done);
    this.done += n;
    clock += 0.02 * n;
    trace.push('analysis');
    return { done: this.done === this.total, doneSteps: this.done, totalSteps: this.total };
  }
  result(): R {
    return this.make(this.done);
  }
  free() {
    this.freed = true;
  }
}

/** A fake lane: ATLL rises by 0.01 per update; diverges at `divergeAt` if set; panics at
 * `panicAt`; with `exactBlocks` > 0 its exact curve is deferred (records without ATLL). */
class FakeLane implements CoreLane {
  iter = 0;
  sent0 = false;
  freed = false;
  calls: { updates: number; view: boolean }[] = [];
  readonly m = 4;
  readonly n = 2;
  get hidden(): number {
    return this.n;
  }
  /** W: w[i·n + j] = i + 10·j + iter (a model that changes as it trains). */
  weights(): Float32Array {
    return Float32Array.from({ length: this.m * this.n }, (_, k) => Math.floor(k / this.n) + 10 * (k % this.n) + this.iter);
  }
  /** Whether the view's distribution waits for the deferred record's log Z. */
  viewAfterExact = false;
  /** Set, like the core's, when the page's budget dropped the exact curve. */
  notice: string | undefined = undefined;
  config: Record<string, number | string | null> = {};
  /** The live edits it took, in order. */
  live: [string, number | string | null][] = [];
  setLive(key: string, value: number | string | null): void {
    if (key === 'k')
      throw { kind: 'invalid_option', key, message: 'Gibbs sweeps k cannot change while the lane trains: the lane must be rebuilt' } satisfies ErrorInfo;
    this.live.push([key, value]);
    this.config = { ...this.config, [key]: value };
  }
  constructor(
    readonly seed: string,
    readonly every: number,
    private readonly divergeAt: number | null,
    private readonly panicAt: number | null,
    readonly exactBlocks = 0,
  ) {}
  /** The update of the last record: a diverged lane's model is that one. */
  private recorded = 0;
  private diverged = false;
  get modelIter(): number {
    return this.diverged ? this.recorded : this.iter;
  }
  private record(): CoreRecord {
    this.recorded = this.iter;
    const atll = this.exactBlocks > 0 ? null : -10 + 0.01 * this.iter;
    return { iter: this.iter, sweeps: this.iter, vh_steps: this.iter, atll, log_z: atll === null ? null : 1, stats: { mean_tau: 2.5 } };
  }
  exportModelBinary(): Uint8Array {
    return new Uint8Array([this.iter, 7]);
  }
  /** The ATLL of the deferred record: minus the sum of the parts' sums (so the test sees them used). */
  finishExact(parts: Float64Array): ExactResult {
    if (parts.length !== 2 * this.exactBlocks) throw new Error('wrong number of blocks');
    let s = 0;
    for (let i = 1; i < parts.length; i += 2) s += parts[i];
    return { atll: -s, logZ: s };
  }
  estimates: FakeEstimate[] = [];
  /** The schedules the estimates were asked with. */
  schedules: (string | undefined)[] = [];
  ais(dataset: string, particles: number, betas: number, _seed: number, reverse: boolean, schedule?: string): CoreEstimate {
    this.schedules.push(schedule);
    if (particles < 2) throw { kind: 'invalid_option', key: 'particles', message: 'the number of AIS particles must be between 2 and 100000 (got 1)' };
    if (dataset !== 'bas4') throw { kind: 'invalid_option', key: 'data', message: `unknown data set '${dataset}'` };
    const e = new FakeEstimate(reverse, particles, betas, this.iter);
    this.estimates.push(e);
    return e;
  }
  analyses: FakeStepped<ChainResult | GradResult | MixingResult>[] = [];
  chain(dataset: string, start: string, kMax: number): CoreStepped<ChainResult> {
    if (start !== 'data' && start !== 'uniform')
      throw { kind: 'invalid_option', key: 'start', message: `the chain starts at data or uniform (got '${start}')` };
    if (dataset !== 'bas4') throw { kind: 'invalid_option', key: 'data', message: `unknown data set '${dataset}'` };
    const iter = this.iter;
    const s = new FakeStepped<ChainResult>(kMax, (done) => ({
      iter,
      points: Array.from({ length: done + 1 }, (_, k) => ({ k, tv_model: 1 / (k + 1), kl_model: 0, tv_data: 0 })),
    }));
    this.analyses.push(s);
    return s;
  }
  grad(_dataset: string, reps: number, seed: number): CoreStepped<GradResult> {
    if (reps < 2) throw { kind: 'invalid_option', key: 'reps', message: 'repetitions: a whole number from 2 to 10000 (got 1)' };
    const iter = this.iter;
    const summary = { bias_norm: 0.5, cosine: 0.9, std_err_norm: 0.1, exact_norm: 2 };
    const s = new FakeStepped<GradResult>(reps, () => ({ iter, seed, summary, estimate: { algo: 'cd', chains: 10, reps, blocks: [] } }));
    this.analyses.push(s);
    return s;
  }
  mixing(): CoreStepped<MixingResult> {
    if (this.n > 8)
      throw {
        kind: 'too_large',
        key: null,
        message: 'the exact Gibbs kernel of a 16×16 model walks 2^32 joint states (m + n = 32); it is limited to m + n ≤ 24',
      };
    const iter = this.iter;
    const s = new FakeStepped<MixingResult>(30, () => ({
      iter,
      gibbs: { lambda2: 0.9, relaxation_time: 10, lanczos_steps: 30 },
      bound: null,
      singular_values: [3, 1],
      modes: 2,
      data_points: [],
      chain_points: [],
    }));
    this.analyses.push(s);
    return s;
  }
  exactAtll(_dataset: string): number | null {
    return this.n <= 20 ? -5 : null;
  }
  /** Milliseconds of the fake clock per update (a loaded machine: more). */
  msPerUpdate = 0.05;
  step(updates: number, view: boolean, withinMs?: number): Slice {
    this.calls.push({ updates, view });
    trace.push('train');
    const t0 = clock;
    if (this.panicAt !== null && this.iter + updates >= this.panicAt) {
      core.panicked = 'internal error at src/train/lane.rs:1: index out of bounds (please report this)';
      throw new WebAssembly.RuntimeError('unreachable');
    }
    const records: CoreRecord[] = [];
    if (!this.sent0) {
      records.push(this.record());
      this.sent0 = true;
    }
    let error: ErrorInfo | null = null;
    for (let i = 0; i < updates; i++) {
      if (i > 0 && withinMs !== undefined && clock - t0 >= withinMs) break;
      clock += this.msPerUpdate;
      if (this.divergeAt !== null && this.iter + 1 >= this.divergeAt) {
        error = { kind: 'diverged', key: null, message: `training diverged at update ${this.iter + 1}` };
        this.diverged = true;
        break;
      }
      this.iter++;
      if (this.iter % this.every === 0) records.push(this.record());
    }
    const v = view
      ? {
          iter: this.iter,
          m: this.m,
          n: this.n,
          dist: { model: [0.25, 0.25], data: [0.5, 0.5], on: 0.5, off: 0.5, log_z: 1 },
          chains: [1, 0, 1, 0, 0, 1, 0, 1],
          originals: [],
          reconstructions: [],
          taus: null,
          weights: new Float32Array(this.m * this.n).fill(this.iter),
        }
      : null;
    return { records, iter: this.iter, error, failed: error !== null, view: v };
  }
  exportModel() {
    return `{"iter":${this.modelIter}}`;
  }
  /** One update (as `step(1)`), with a trace that says which update it was. */
  stepTraced(show: number): TracedSlice {
    const s = this.step(1, false);
    const trace = s.error
      ? null
      : {
          iter: this.iter,
          m: this.m,
          n: this.n,
          lr: 0.1,
          rows: show,
          batch: [],
          hidden_probs: [],
          chains: 0,
          sweeps: [],
          positive: [],
          negative: [],
          delta_w: [],
        };
    return { trace, records: s.records, iter: s.iter, error: s.error };
  }
  free() {
    this.freed = true;
  }
}

/** A GPU lane as the runner sees one: `step(n > 0)` dispatches the updates (its `iter` counts
 * them) and their records land at the next call; `busy` while some are in flight. Its model
 * (for AIS) is the landed one. */
class FakeGpuLane extends FakeLane {
  readonly gpu = 'fake GPU';
  private inFlight: Slice | null = null;
  /** The update of the model that has landed. */
  landed = 0;
  /** The landed update each estimate was taken at, and whether updates were in flight then. */
  taken: { landed: number; busy: boolean }[] = [];
  get busy(): boolean {
    return this.inFlight !== null;
  }
  step(updates: number, view: boolean, withinMs?: number): Slice {
    const arrived = this.inFlight;
    this.inFlight = null;
    if (arrived) this.landed = arrived.iter;
    if (updates > 0) {
      this.inFlight = super.step(updates, view, withinMs);
      return arrived ?? { records: [], iter: this.landed, error: null, failed: false, view: null };
    }
    const now = super.step(0, view);
    return arrived ? { ...arrived, records: [...now.records, ...arrived.records], view: now.view } : now;
  }
  ais(dataset: string, particles: number, betas: number, seed: number, reverse: boolean, schedule?: string): CoreEstimate {
    this.taken.push({ landed: this.landed, busy: this.busy });
    return super.ais(dataset, particles, betas, seed, reverse, schedule);
  }
}

/** A data load the test settles by hand. */
interface PendingLoad {
  source: DataSource;
  progress: (received: number, total: number | null) => void;
  resolve: (sets: LoadedSet[]) => void;
  reject: (e: unknown) => void;
}

const core: Core & { lanes: FakeLane[]; panicked: string | undefined; data: Set<string>; loads: PendingLoad[] } = {
  lanes: [],
  panicked: undefined,
  data: new Set(),
  loads: [],
  hasData(key: string) {
    return this.data.has(key);
  },
  loadData(source, progress) {
    return new Promise<LoadedSet[]>((resolve, reject) => {
      core.loads.push({
        source,
        progress,
        resolve: (sets) => {
          core.data.add(source.key);
          resolve(sets);
        },
        reject,
      });
    });
  },
  newLane(config: LaneConfig) {
    if (config.panic) {
      core.panicked = 'internal error: a panic while building';
      throw new WebAssembly.RuntimeError('unreachable');
    }
    if (typeof config.lr !== 'number' || config.lr < 0) {
      throw { kind: 'invalid_option', key: 'lr', message: `learning rate η must be a number from 0 to 1000000, got ${config.lr}` } satisfies ErrorInfo;
    }
    const lane = new (config.gpuFake === 1 ? FakeGpuLane : FakeLane)(
      String(config.seed),
      Number(config.every ?? 10),
      config.lr > 1e30 ? 7 : null,
      typeof config.panicAt === 'number' ? config.panicAt : null,
      typeof config.deferBlocks === 'number' ? config.deferBlocks : 0,
    );
    if (typeof config.hidden === 'number' && config.hidden > 1000) lane.notice = 'No exact curve for this lane: …';
    if (config.viewAfterExact === 1) lane.viewAfterExact = true;
    lane.config = { ...config };
    this.lanes.push(lane);
    return lane;
  },
  /** A fake model file is the JSON `{"iter": N, "k": K}`: the lane continues at update N, with
   * k = K when `recorded`; anything else is refused as the core refuses it. */
  resumeLane(config: LaneConfig, dataset: string, bytes: Uint8Array, recorded: boolean) {
    let file: { iter: number; k?: number };
    try {
      file = JSON.parse(new TextDecoder().decode(bytes));
    } catch {
      throw { kind: 'parse', key: null, message: 'malformed input: model file: neither JSON nor the binary format' } satisfies ErrorInfo;
    }
    const lane = core.newLane(recorded && file.k ? { ...config, k: file.k } : config, dataset) as unknown as FakeLane;
    lane.iter = file.iter;
    return lane;
  },
  lastPanic() {
    return this.panicked;
  },
  /** Block b of model bytes [iter, 7] has partial sum (max b, sum iter + b); `from` ≥ 99 is refused. */
  logZBlocks(model: Uint8Array, from: number, to: number) {
    if (from >= 99) throw { kind: 'invalid', key: null, message: `blocks ${from}..${to} do not exist` } satisfies ErrorInfo;
    const out = new Float64Array(2 * (to - from));
    for (let b = from; b < to; b++) out.set([b, model[0] + b], 2 * (b - from));
    return out;
  },
  panicForTest() {
    this.panicked = 'internal error at crates/wasm/src/lib.rs:80: a deliberate panic (panicForTest) (please report this)';
    throw new WebAssembly.RuntimeError('unreachable');
  },
};

let sent: FromWorker[];
let tasks: (() => void)[];
let runner: LaneRunner;
let gen: number;
const host: Host = {
  post: (m) => sent.push(m),
  now: () => clock,
  schedule: (fn) => tasks.push(fn),
};

function runTasks(max: number): number {
  let n = 0;
  while (tasks.length && n < max) {
    tasks.shift()!();
    clock += 5;
    n++;
  }
  return n;
}

const configure = (config: LaneConfig): ToWorker => ({ type: 'configure', gen: ++gen, config, dataset: 'bas4' });
const of = <T extends FromWorker['type']>(type: T) => sent.filter((m) => m.type === type) as Extract<FromWorker, { type: T }>[];
const statuses = () => of('status').map((m) => m.status);

beforeEach(() => {
  trace = [];
  sent = [];
  tasks = [];
  clock = 0;
  gen = 0;
  core.lanes = [];
  core.panicked = undefined;
  core.data = new Set();
  core.loads = [];
  runner = new LaneRunner(core, host);
});

describe('LaneRunner: configuration', () => {
  it("passes on the core's notice when the page's budget dropped the exact curve", () => {
    runner.handle(configure({ lr: 0.1, seed: 3, every: 10, hidden: 100000 }));
    expect(of('configured')).toEqual([{ type: 'configured', gen: 1, seed: '3', every: 10, notice: 'No exact curve for this lane: …' }]);
  });

  it('builds a lane: configured with its generation, the initial record and a view in one step call, then ready', () => {
    runner.handle(configure({ lr: 0.1, seed: 3, every: 10 }));
    expect(sent.map((m) => m.type)).toEqual(['configured', 'progress', 'status']);
    expect(of('configured')).toEqual([{ type: 'configured', gen: 1, seed: '3', every: 10 }]);
    expect('notice' in of('configured')[0]).toBe(false);
    const p = of('progress')[0];
    expect(p.gen).toBe(1);
    expect(p.points).toEqual([{ iter: 0, sweeps: 0, atll: -10 }]);
    expect(p.view?.weights.length).toBe(8);
    expect(p.view?.chains).toEqual([1, 0, 1, 0, 0, 1, 0, 1]);
    expect(core.lanes[0].calls).toEqual([{ updates: 0, view: true }]);
    expect(of('status')).toEqual([{ type: 'status', gen: 1, status: 'ready', message: null }]);
    expect(tasks).toHaveLength(0); // not running yet
  });

  it("refuses a bad configuration with the core's ErrorInfo, naming the lane it keeps", () => {
    runner.handle(configure({ lr: 0.1, seed: 1 }));
    runner.handle(configure({ lr: -1, seed: 1 }));
    expect(of('rejected')).toEqual([
      { type: 'rejected', gen: 2, kept: 1, error: { kind: 'invalid_option', key: 'lr', message: expect.stringContaining('learning rate') } },
    ]);
    expect(core.lanes[0].freed).toBe(false);
    runner.handle({ type: 'start' });
    runTasks(3);
    expect(core.lanes[0].iter).toBeGreaterThan(0);
    // The kept lane's messages keep its generation.
    expect(of('progress').at(-1)!.gen).toBe(1);
  });

  it('a refused first configuration leaves the lane failed with the message (kept 0)', () => {
    runner.handle(configure({ lr: -1, seed: 1 }));
    expect(of('rejected')[0].kept).toBe(0);
    expect(of('status')).toEqual([{ type: 'status', gen: 0, status: 'failed', message: expect.stringContaining('learning rate') }]);
    runner.handle({ type: 'start' });
    expect(tasks).toHaveLength(0);
    runner.handle(configure({ lr: 0.1, seed: 1 }));
    expect(statuses().at(-1)).toBe('ready');
  });

  it('keeps a running lane running through a new configuration (the page never re-sends start)', () => {
    runner.handle(configure({ lr: 0.1, seed: 1, every: 10 }));
    runner.handle({ type: 'start' });
    runTasks(5);
    runner.handle(configure({ lr: 0.2, seed: 1, every: 10 }));
    expect(of('configured').map((m) => m.gen)).toEqual([1, 2]);
    expect(of('status').at(-1)).toEqual({ type: 'status', gen: 2, status: 'running', message: null });
    expect(core.lanes[0].freed).toBe(true);
    runTasks(5);
    expect(core.lanes[1].iter).toBeGreaterThan(0);
    expect(of('progress').at(-1)!.gen).toBe(2);
  });
});

describe('LaneRunner: running', () => {
  it('runs in slices of exactly one step call each, reports its status, and holds still once paused', () => {
    runner.handle(configure({ lr: 0.1, seed: 1, every: 10 }));
    runner.handle({ type: 'start' });
    expect(statuses()).toEqual(['ready', 'running']);
    const lane = core.lanes[0];
    const before = lane.calls.length;
    expect(runTasks(20)).toBe(20);
    expect(lane.calls.length - before).toBe(20);
    const iters = of('progress').flatMap((m) => m.points.map((p) => p.iter));
    expect(iters.length).toBeGreaterThan(3);
    expect(iters).toEqual([...iters].sort((x, y) => x - y));
    expect(new Set(iters).size).toBe(iters.length);
    const last = of('progress').at(-1)!;
    expect(last.rate).toBeGreaterThan(0);
    expect(last.stats).toEqual({ mean_tau: 2.5 });
    runner.handle({ type: 'pause' });
    const at = lane.iter;
    // "paused" at once (the page knows the position from the last slice), then the view of
    // that position, which may have to enumerate log Z.
    expect(sent.slice(-3).map((m) => m.type)).toEqual(['progress', 'status', 'progress']);
    expect(sent.at(-3)).toMatchObject({ type: 'progress', iter: at });
    // The reply names the update the lane stopped at: no slice runs after it.
    expect(sent.at(-2)).toMatchObject({ type: 'status', status: 'paused', iter: at });
    expect(of('progress').at(-1)!.iter).toBe(at);
    expect(of('progress').at(-1)!.view).not.toBeNull();
    expect(statuses().at(-1)).toBe('paused');
    runTasks(10);
    expect(lane.iter).toBe(at);
  });

  it("asks for a view at a bounded rate, at records where the record's log Z is reused", () => {
    runner.handle(configure({ lr: 0.1, seed: 1, every: 7 }));
    runner.handle({ type: 'start' });
    runTasks(400);
    const lane = core.lanes[0];
    const views = of('progress')
      .slice(1)
      .flatMap((m) => (m.view ? [m.view.iter] : []));
    expect(views.length).toBeGreaterThan(3);
    for (const iter of views) expect(iter % 7).toBe(0);
    // Fake time: 5 ms per slice plus 50 µs per update, so 400 slices take well under 400 × 250 ms.
    expect(lane.calls.filter((c) => c.view).length).toBeLessThan(lane.calls.length / 10);
  });

  it('grows the chunk while slices are quick', () => {
    runner.handle(configure({ lr: 0.1, seed: 1, every: 1000 }));
    runner.handle({ type: 'start' });
    runTasks(8);
    expect(core.lanes[0].iter).toBeGreaterThanOrEqual(2 ** 8 - 1);
  });

  it('ends a slice at twice its time when the machine slows the worker down, and sizes the next by it', () => {
    runner.handle(configure({ lr: 0.1, seed: 1, every: 1_000_000 }));
    runner.handle({ type: 'start' });
    runTasks(30);
    const lane = core.lanes[0];
    const chunk = lane.calls.at(-1)!.updates;
    expect(chunk).toBeGreaterThan(200);
    lane.msPerUpdate = 30; // the worker now gets a small share of a core
    const before = lane.iter;
    runTasks(1);
    expect(lane.iter - before).toBe(3); // 30, 60, 90 ms: over 2 × 40 ms after the third
    runTasks(1);
    expect(lane.calls.at(-1)!.updates).toBeLessThanOrEqual(3);
  });

  it('reports a divergence as failed with its message, keeps the points before it and stops', () => {
    runner.handle(configure({ lr: 1e39, seed: 1, every: 2 }));
    runner.handle({ type: 'start' });
    runTasks(50);
    expect(of('status').at(-1)).toEqual({ type: 'status', gen: 1, status: 'failed', message: 'training diverged at update 7' });
    expect(of('progress').flatMap((m) => m.points.map((p) => p.iter))).toEqual([0, 2, 4, 6]);
    expect(tasks).toHaveLength(0);
    runner.handle({ type: 'start' });
    expect(statuses().at(-1)).toBe('failed');
    expect(tasks).toHaveLength(0);
  });

  it("exports a diverged lane's last finite model with the update it is of", () => {
    runner.handle(configure({ lr: 1e39, seed: 1, every: 4 }));
    runner.handle({ type: 'start' });
    runTasks(50);
    expect(of('status').at(-1)?.message).toBe('training diverged at update 7');
    runner.handle({ type: 'export' });
    expect(of('model')).toEqual([{ type: 'model', gen: 1, iter: 4, json: '{"iter":4}' }]);
  });

  it('resets to a fresh lane of a new generation with the same configuration, and exports the model', () => {
    runner.handle(configure({ lr: 0.1, seed: 9, every: 10 }));
    runner.handle({ type: 'start' });
    runTasks(5);
    runner.handle({ type: 'pause' });
    runner.handle({ type: 'reset', gen: 5 });
    expect(core.lanes).toHaveLength(2);
    expect(core.lanes[0].freed).toBe(true);
    expect(of('configured').map((m) => [m.gen, m.seed])).toEqual([
      [1, '9'],
      [5, '9'],
    ]);
    expect(statuses().at(-1)).toBe('ready');
    runner.handle({ type: 'export' });
    expect(of('model')).toEqual([{ type: 'model', gen: 5, iter: 0, json: '{"iter":0}' }]);
  });

  it('stops for good at its limit, on the exact update, and a later limit lets it go on', () => {
    runner.handle({ type: 'limit', until: 1234 });
    runner.handle(configure({ lr: 0.1, seed: 1, every: 100 }));
    runner.handle({ type: 'start' });
    runTasks(200);
    expect(core.lanes[0].iter).toBe(1234);
    expect(tasks).toHaveLength(0);
    expect(statuses().at(-1)).toBe('done');
    expect(of('progress').at(-1)!.iter).toBe(1234);
    expect(of('progress').at(-1)!.view?.iter).toBe(1234); // the final position is drawn
    runner.handle({ type: 'start' });
    expect(tasks).toHaveLength(0);
    expect(statuses().at(-1)).toBe('done');
    runner.handle({ type: 'limit', until: 1500 });
    runner.handle({ type: 'start' });
    runTasks(200);
    expect(core.lanes).toHaveLength(1);
    expect(core.lanes[0].iter).toBe(1500);
    // A limit below the position of a running lane stops it at once.
    runner.handle({ type: 'limit', until: null });
    runner.handle({ type: 'start' });
    runTasks(3);
    runner.handle({ type: 'limit', until: 10 });
    expect(statuses().at(-1)).toBe('done');
    const at = core.lanes[0].iter;
    runTasks(5);
    expect(core.lanes[0].iter).toBe(at);
  });
});

describe('LaneRunner: panics', () => {
  it("a RuntimeError of the core makes the worker fatal with lastPanic()'s message, and it then ignores everything", () => {
    runner.handle(configure({ lr: 0.1, seed: 1, every: 10, panicAt: 50 }));
    runner.handle({ type: 'start' });
    runTasks(50);
    expect(of('status').at(-1)).toEqual({
      type: 'status',
      gen: 1,
      status: 'fatal',
      message: 'internal error at src/train/lane.rs:1: index out of bounds (please report this)',
    });
    expect(tasks).toHaveLength(0);
    const count = sent.length;
    runner.handle({ type: 'start' });
    runner.handle(configure({ lr: 0.1, seed: 1 }));
    runner.handle({ type: 'export' });
    expect(sent.length).toBe(count);
    expect(core.lanes).toHaveLength(1);
  });

  it('the test-only crash message panics through the core', () => {
    runner.handle(configure({ lr: 0.1, seed: 1 }));
    runner.handle({ type: 'crash' });
    expect(of('status').at(-1)).toMatchObject({ status: 'fatal', message: expect.stringContaining('deliberate panic') });
  });

  it('a panic while building a lane is fatal, not a refusal', () => {
    runner.handle(configure({ lr: 0.1, seed: 1, panic: 1 }));
    expect(of('rejected')).toEqual([]);
    expect(of('status')).toEqual([{ type: 'status', gen: 0, status: 'fatal', message: 'internal error: a panic while building' }]);
  });

  it("without a recorded panic message, the error's own message is shown", () => {
    const bare: Core = {
      ...core,
      lastPanic: () => undefined,
      panicForTest: () => {
        throw new WebAssembly.RuntimeError('unreachable executed');
      },
    };
    const r = new LaneRunner(bare, host);
    r.handle({ type: 'crash' });
    expect(of('status').at(-1)!.message).toBe('the WebAssembly core stopped: unreachable executed');
  });
});

describe('LaneRunner: data that must be loaded first', () => {
  const mnist: DataSource = {
    key: 'asset:mnist',
    kind: 'asset',
    name: 'mnist',
    label: 'the MNIST digits',
    files: [{ url: 'https://x/mnist.bin.gz', what: 'the MNIST digits' }],
  };
  const onMnist = (config: LaneConfig, source: DataSource = mnist): ToWorker => ({ type: 'configure', gen: ++gen, config, dataset: 'mnist', source });
  const settle = () => new Promise((r) => setTimeout(r, 0));
  const loadingMessages = () => of('loading');

  it('waits for the data (status loading, bytes received at a bounded rate), then builds and is ready', async () => {
    runner.handle(onMnist({ lr: 0.1, seed: 1 }));
    expect(core.loads.map((l) => l.source.key)).toEqual(['asset:mnist']);
    expect(core.lanes).toHaveLength(0);
    expect(loadingMessages()).toEqual([{ type: 'loading', gen: 1, label: 'the MNIST digits', received: 0, total: null }]);
    const load = core.loads[0];
    load.progress(1000, 2_000_000); // at once after the first message: not sent
    clock += 150;
    load.progress(500_000, 2_000_000);
    load.progress(600_000, 2_000_000); // too soon after the last: not sent
    clock += 150;
    load.progress(2_000_000, 2_000_000);
    expect(loadingMessages().map((m) => m.received)).toEqual([0, 500_000, 2_000_000]); // the last one always
    expect(loadingMessages().every((m) => m.gen === 1 && m.total !== 0)).toBe(true);
    load.resolve([]);
    await settle();
    expect(core.lanes).toHaveLength(1);
    expect(of('configured').map((m) => m.gen)).toEqual([1]);
    expect(statuses().at(-1)).toBe('ready');
    // Loaded once: the next configuration on it builds at once.
    runner.handle(onMnist({ lr: 0.2, seed: 1 }));
    expect(core.loads).toHaveLength(1);
    expect(of('configured').map((m) => m.gen)).toEqual([1, 2]);
  });

  it('holds a running lane still while its new data loads, and runs the new lane once built', async () => {
    runner.handle(configure({ lr: 0.1, seed: 1, every: 10 }));
    runner.handle({ type: 'start' });
    runTasks(3);
    runner.handle(onMnist({ lr: 0.1, seed: 1 }));
    expect(of('status').at(-1)).toEqual({ type: 'status', gen: 1, status: 'loading', message: null });
    const at = core.lanes[0].iter;
    runTasks(5);
    expect(core.lanes[0].iter).toBe(at);
    core.loads[0].resolve([]);
    await settle();
    expect(of('status').at(-1)).toEqual({ type: 'status', gen: 2, status: 'running', message: null });
    runTasks(3);
    expect(core.lanes[1].iter).toBeGreaterThan(0);
  });

  it('takes start and pause while loading as what to do once built', async () => {
    runner.handle(onMnist({ lr: 0.1, seed: 1 }));
    runner.handle({ type: 'start' });
    runner.handle({ type: 'pause' });
    runner.handle({ type: 'start' });
    expect(statuses()).toEqual([]); // still the initial `loading`
    core.loads[0].resolve([]);
    await settle();
    expect(statuses()).toEqual(['running']);
  });

  it('builds only the latest configuration: a newer one replaces the waiting one, or builds at once if it needs no load', async () => {
    runner.handle(onMnist({ lr: 0.1, seed: 1 }));
    runner.handle(onMnist({ lr: 0.3, seed: 1 }));
    runner.handle({ type: 'reset', gen: 7 }); // a reset while loading: the lane to come takes its generation
    core.loads[0].resolve([]);
    await settle();
    expect(core.lanes).toHaveLength(1);
    expect(of('configured')).toEqual([{ type: 'configured', gen: 7, seed: '1', every: 10 }]);
    // Waiting for a user's file, then back to a built-in set: that one is built at once and the load's end changes nothing.
    const file: DataSource = { key: 'idx:1:digits', kind: 'idx', name: 'digits', label: "'digits.gz'", files: [{ url: 'blob:x', what: "'digits.gz'" }] };
    gen = 7;
    runner.handle({ type: 'configure', gen: ++gen, config: { lr: 0.1, seed: 1 }, dataset: 'digits', source: file });
    runner.handle(configure({ lr: 0.1, seed: 2 }));
    expect(of('configured').map((m) => m.gen)).toEqual([7, 9]);
    core.loads[1].resolve([]);
    await settle();
    expect(of('configured').map((m) => m.gen)).toEqual([7, 9]);
    expect(core.lanes).toHaveLength(2);
  });

  it("refuses a configuration whose data cannot be loaded: the message keyed 'data', the kept lane as it was", async () => {
    runner.handle(configure({ lr: 0.1, seed: 1, every: 10 }));
    runner.handle({ type: 'start' });
    runTasks(2);
    runner.handle(onMnist({ lr: 0.1, seed: 1 }));
    const error: ErrorInfo = { kind: 'invalid_option', key: 'data', message: 'could not download the MNIST digits: the server answered 404 Not Found' };
    core.loads[0].reject(error);
    await settle();
    expect(of('rejected')).toEqual([{ type: 'rejected', gen: 2, error, kept: 1 }]);
    expect(of('status').at(-1)).toEqual({ type: 'status', gen: 1, status: 'running', message: null });
    const at = core.lanes[0].iter;
    runTasks(2);
    expect(core.lanes[0].iter).toBeGreaterThan(at);
    // Without a lane to keep, the worker is `failed` with the message.
    const fresh = new LaneRunner(core, host);
    fresh.handle(onMnist({ lr: 0.1, seed: 1 }));
    core.loads[1].reject(error);
    await settle();
    expect(of('status').at(-1)).toEqual({ type: 'status', gen: 0, status: 'failed', message: error.message });
  });

  it('checks a source for the page (probe) and answers with what it holds, or why not', async () => {
    const file: DataSource = { key: 'idx:2:digits', kind: 'idx', name: 'digits', label: "'digits'", files: [{ url: 'blob:y', what: "'digits'" }] };
    runner.handle({ type: 'probe', id: 4, source: file });
    const set: LoadedSet = { name: 'digits', rows: 3, m: 4, shape: [2, 2], labelled: false };
    core.loads[0].resolve([set]);
    runner.handle({ type: 'probe', id: 5, source: { ...file, key: 'idx:3:junk' } });
    const error: ErrorInfo = { kind: 'invalid_option', key: 'data', message: "'junk' is not an IDX images file" };
    core.loads[1].reject(error);
    await settle();
    expect(of('probed')).toEqual([
      { type: 'probed', id: 4, sets: [set], error: null },
      { type: 'probed', id: 5, sets: [], error },
    ]);
    expect(core.lanes).toHaveLength(0);
  });
});

describe('LaneRunner: log-likelihood estimates (AIS, then RAISE)', () => {
  const settings = { particles: 50, betas: 1001, seed: 1 };
  const estimate = (g: number, id = 1, dataset = 'bas4'): ToWorker => ({ type: 'estimate', gen: g, id, dataset, settings });
  const reports = () => of('estimate').map((m) => m.report);

  it('interleaves estimate steps with training slices, reports progress, and ends with both sides and the exact value', () => {
    runner.handle(configure({ lr: 0.1, seed: 1, every: 10 }));
    runner.handle({ type: 'start' });
    runTasks(3);
    const at = core.lanes[0].iter;
    runner.handle(estimate(1));
    expect(reports()[0]).toMatchObject({ state: 'running', phase: 'ais', iter: at, exact: -5, dataset: 'bas4' });
    trace = [];
    runTasks(10_000);
    const last = reports().at(-1)!;
    expect(last.state).toBe('done');
    expect(last.done).toBe(last.total);
    expect(last.total).toBe(2 * 2 * 1000);
    expect(last.ais).toMatchObject({ method: 'ais', atll: -4, iter: at });
    expect(last.raise).toMatchObject({ method: 'raise', atll: -6, iter: at });
    expect(last.exact).toBe(-5);
    expect(last.ms).toBeGreaterThan(0);
    // Every tick: one training slice, then one estimate step; AIS runs before RAISE.
    const est = trace.filter((t) => t !== 'train');
    expect(est.indexOf('raise')).toBeGreaterThan(est.lastIndexOf('ais'));
    for (let i = 0; i + 1 < trace.length && trace[i + 1] !== undefined; i += 2) {
      if (!trace.slice(i).some((t) => t !== 'train')) break;
      expect(trace[i]).toBe('train');
      expect(trace[i + 1]).not.toBe('train');
    }
    // Both runs were taken from the model at the same update, and both are freed.
    expect(core.lanes[0].estimates.map((e) => [e.iter, e.freed])).toEqual([
      [at, true],
      [at, true],
    ]);
    expect(core.lanes[0].iter).toBeGreaterThan(at); // the lane kept training
    expect(statuses().at(-1)).toBe('running');
    // Progress is monotone and at a bounded rate.
    const done = reports().map((r) => r.done);
    expect(done).toEqual([...done].sort((a, b) => a - b));
    expect(reports().length).toBeLessThan(100);
    // Estimate steps grow to fill about one slice each: far fewer calls than steps.
    expect(est.length).toBeLessThan(40);
  });

  it('runs on a paused lane too, without training it', () => {
    runner.handle(configure({ lr: 0.1, seed: 1, every: 10 }));
    runner.handle(estimate(1));
    runTasks(10_000);
    expect(reports().at(-1)!.state).toBe('done');
    expect(core.lanes[0].iter).toBe(0);
    expect(trace.filter((t) => t === 'train')).toHaveLength(1); // the build's step(0)
    expect(tasks).toHaveLength(0); // nothing left to do
  });

  it('cancel frees both runs at once and says so; a new lane or a new estimate ends the old one', () => {
    runner.handle(configure({ lr: 0.1, seed: 1, every: 10 }));
    runner.handle(estimate(1, 1));
    runTasks(2);
    runner.handle({ type: 'cancelEstimate', id: 1 });
    expect(reports().at(-1)!.state).toBe('cancelled');
    expect(core.lanes[0].estimates.every((e) => e.freed)).toBe(true);
    runTasks(100);
    expect(reports().at(-1)!.state).toBe('cancelled');
    runner.handle({ type: 'cancelEstimate', id: 1 }); // twice: nothing happens
    expect(reports().filter((r) => r.state === 'cancelled')).toHaveLength(1);

    runner.handle(estimate(1, 2));
    runner.handle(estimate(1, 3));
    expect(
      of('estimate')
        .filter((m) => m.id === 2)
        .at(-1)!.report.state,
    ).toBe('cancelled');
    runner.handle(configure({ lr: 0.1, seed: 2, every: 10 }));
    const last = of('estimate').at(-1)!;
    expect([last.id, last.gen, last.report.state]).toEqual([3, 1, 'cancelled']);
    expect(core.lanes[0].estimates.every((e) => e.freed)).toBe(true);
  });

  it("refuses an estimate of a stale lane, and reports the core's refusal as failed", () => {
    runner.handle(configure({ lr: 0.1, seed: 1, every: 10 }));
    runner.handle(estimate(7));
    expect(of('estimate').at(-1)).toMatchObject({ gen: 7, report: { state: 'failed', error: expect.stringContaining('lane changed') } });
    runner.handle({ type: 'estimate', gen: 1, id: 2, dataset: 'bas4', settings: { particles: 1, betas: 10, seed: 1 } });
    expect(of('estimate').at(-1)).toMatchObject({ id: 2, report: { state: 'failed', error: expect.stringContaining('particles') } });
    runner.handle(estimate(1, 3, 'nope'));
    expect(of('estimate').at(-1)!.report.error).toContain('unknown data set');
    // Nothing is left running.
    expect(core.lanes[0].estimates.every((e) => e.freed)).toBe(true);
    expect(tasks).toHaveLength(0);
  });
});

describe("LaneRunner: exact views of the lane's model (chain walk, gradient error)", () => {
  const reports = () => of('analysis');
  const chain = (g: number, id: number, kMax = 500): ToWorker => ({
    type: 'analysis',
    gen: g,
    id,
    request: { kind: 'chain', start: 'data', kMax },
  });
  const grad = (g: number, id: number, reps = 300): ToWorker => ({ type: 'analysis', gen: g, id, request: { kind: 'grad', reps, seed: 4 } });

  it('runs a chain walk and a gradient estimate side by side between training slices, each to its result', () => {
    runner.handle(configure({ lr: 0.1, seed: 1, every: 10 }));
    runner.handle({ type: 'start' });
    runTasks(3);
    const at = core.lanes[0].iter;
    runner.handle(chain(1, 1));
    runner.handle(grad(1, 2));
    trace = [];
    runTasks(10_000);
    const done = reports().filter((m) => m.report.state === 'done');
    expect(done.map((m) => [m.id, m.report.kind])).toEqual(
      expect.arrayContaining([
        [1, 'chain'],
        [2, 'grad'],
      ]),
    );
    const c = done.find((m) => m.id === 1)!.report;
    expect([c.iter, c.done, c.total, (c.result as ChainResult | null)?.iter, (c.result as ChainResult | null)?.points.length]).toEqual([at, 500, 500, at, 501]);
    const g = done.find((m) => m.id === 2)!.report;
    const gr = g.result as GradResult | null;
    expect([gr?.iter, gr?.seed, gr?.summary.bias_norm]).toEqual([at, 4, 0.5]);
    expect(core.lanes[0].analyses.every((a) => a.freed)).toBe(true);
    expect(trace.filter((t) => t === 'analysis').length).toBeLessThan(60); // chunks grow to fill a slice
    expect(core.lanes[0].iter).toBeGreaterThan(at); // training went on
    expect(reports().length).toBeLessThan(60);
  });

  it('runs on a paused lane, and stops: cancel, a new request of the same kind, a new lane', () => {
    runner.handle(configure({ lr: 0.1, seed: 1, every: 10 }));
    runner.handle(chain(1, 1));
    runTasks(1);
    runner.handle({ type: 'cancelAnalysis', id: 1 });
    expect(reports().at(-1)!.report.state).toBe('cancelled');
    runTasks(100);
    expect(tasks).toHaveLength(0);
    runner.handle(chain(1, 2));
    runner.handle(chain(1, 3, 20));
    expect(
      reports()
        .filter((m) => m.id === 2)
        .at(-1)!.report.state,
    ).toBe('cancelled');
    runTasks(10_000);
    expect(reports().at(-1)).toMatchObject({ id: 3, report: { state: 'done', done: 20 } });
    expect(core.lanes[0].iter).toBe(0);
    runner.handle(grad(1, 4));
    runner.handle(configure({ lr: 0.1, seed: 2, every: 10 }));
    expect(reports().at(-1)).toMatchObject({ id: 4, report: { state: 'cancelled' } });
    expect(core.lanes[0].analyses.every((a) => a.freed)).toBe(true);
  });

  it("answers a request done in one step (the hidden units' norms) with the lane's weights at that update", () => {
    runner.handle(configure({ lr: 0.1, seed: 1, every: 10 }));
    runner.handle({ type: 'start' });
    runTasks(3);
    runner.handle({ type: 'pause' });
    const lane = core.lanes[0];
    const at = lane.iter;
    runner.handle({ type: 'analysis', gen: 1, id: 5, request: { kind: 'hiddenNorms', units: 1 } });
    runTasks(5);
    const done = reports().filter((m) => m.id === 5 && m.report.state === 'done');
    expect(done).toHaveLength(1);
    const r = done[0].report;
    expect([r.kind, r.iter, r.done, r.total]).toEqual(['hiddenNorms', at, 1, 1]);
    expect(r.result).toEqual(hiddenNorms(lane.weights(), lane.n, 1));
    expect(lane.iter).toBe(at); // a paused lane stays paused
    expect(tasks).toHaveLength(0);
  });

  it("refuses a stale lane's request and reports the core's refusal as failed", () => {
    runner.handle(configure({ lr: 0.1, seed: 1, every: 10 }));
    runner.handle(chain(9, 1));
    expect(reports().at(-1)).toMatchObject({ gen: 9, report: { state: 'failed', error: expect.stringContaining('lane changed') } });
    runner.handle(grad(1, 2, 1));
    expect(reports().at(-1)).toMatchObject({ id: 2, report: { state: 'failed', error: expect.stringContaining('repetitions') } });
    expect(tasks).toHaveLength(0);
  });
});

describe("LaneRunner: exact curves computed by the page's evaluation pool", () => {
  const exactOf = () => of('exact');
  const points = () => of('progress').flatMap((m) => m.points);

  it('sends each record of a deferred lane to the pool and trains on only once its point is in', () => {
    runner.handle(configure({ lr: 0.1, seed: 1, every: 10, deferBlocks: 2 }));
    // The initial record: no point yet, its model goes to the pool.
    expect(sent.map((m) => m.type)).toEqual(['configured', 'progress', 'exact', 'status']);
    const first = exactOf()[0];
    expect([first.gen, first.id, first.iter, first.blocks, [...new Uint8Array(first.model)]]).toEqual([1, 1, 0, 2, [0, 7]]);
    runner.handle({ type: 'start' });
    runTasks(5);
    expect(trace.filter((t) => t === 'train')).toHaveLength(1); // the build's step(0) only
    expect(points()).toEqual([]);
    // A stale answer (other id or generation) is ignored.
    runner.handle({ type: 'exactParts', gen: 1, id: 9, parts: new Float64Array(4) });
    runner.handle({ type: 'exactParts', gen: 2, id: 1, parts: new Float64Array(4) });
    runTasks(5);
    expect(points()).toEqual([]);
    runner.handle({ type: 'exactParts', gen: 1, id: 1, parts: new Float64Array([0, 1.5, 1, 2]) });
    expect(points()).toEqual([{ iter: 0, sweeps: 0, atll: -3.5 }]);
    // Training runs to the next record and stops there, waiting again.
    runTasks(50);
    const lane = core.lanes[0];
    expect(lane.iter).toBe(10);
    expect(lane.calls.every((c) => c.updates <= 10)).toBe(true);
    expect(exactOf().map((m) => [m.id, m.iter])).toEqual([
      [1, 0],
      [2, 10],
    ]);
    expect(statuses().at(-1)).toBe('running');
    // A skipped point: training goes on without it.
    runner.handle({ type: 'exactSkip', gen: 1, id: 2 });
    runTasks(50);
    expect(lane.iter).toBe(20);
    expect(points()).toHaveLength(1);
    expect(exactOf().at(-1)!.iter).toBe(20);
  });

  it("a deferred lane whose view needs the record's log Z gets its view with the pool's answer", () => {
    runner.handle(configure({ lr: 0.1, seed: 1, every: 10, deferBlocks: 2, viewAfterExact: 1 }));
    runner.handle({ type: 'exactParts', gen: 1, id: 1, parts: new Float64Array(4) });
    clock += 1000; // a view is due
    runner.handle({ type: 'start' });
    runTasks(50);
    const lane = core.lanes[0];
    expect(lane.iter).toBe(10);
    // The slice ending on the record made no view; the pool's answer brings it.
    expect(lane.calls.filter((c) => c.updates > 0).every((c) => !c.view)).toBe(true);
    expect(of('progress').filter((m) => m.view !== null)).toHaveLength(1); // the build's, at update 0
    runner.handle({ type: 'exactParts', gen: 1, id: 2, parts: new Float64Array(4) });
    const last = of('progress').at(-1)!;
    expect([last.points.map((p) => p.iter), last.view?.iter]).toEqual([[10], 10]);
    expect(lane.calls.at(-1)).toEqual({ updates: 0, view: true });
  });

  it('forgets the wait when the lane is rebuilt, and a lane that enumerates itself never waits', () => {
    runner.handle(configure({ lr: 0.1, seed: 1, every: 10, deferBlocks: 2 }));
    runner.handle(configure({ lr: 0.1, seed: 1, every: 10 }));
    runner.handle({ type: 'exactParts', gen: 1, id: 1, parts: new Float64Array(4) });
    runner.handle({ type: 'start' });
    runTasks(50);
    expect(exactOf()).toHaveLength(1);
    expect(core.lanes[1].iter).toBeGreaterThan(10);
    expect(points().every((p) => p.atll === -10 + 0.01 * p.iter)).toBe(true);
  });

  it("answers the pool's requests for runs of blocks, and says when the core refuses one", () => {
    const model = new Uint8Array([5, 7]).buffer;
    runner.handle({ type: 'logz', id: 3, model, from: 2, to: 4 });
    expect(of('logzParts')).toEqual([{ type: 'logzParts', id: 3, from: 2, parts: new Float64Array([2, 7, 3, 8]) }]);
    runner.handle({ type: 'logz', id: 4, model, from: 99, to: 100 });
    expect(of('logzFailed')).toEqual([{ type: 'logzFailed', id: 4, message: 'blocks 99..100 do not exist' }]);
    expect(statuses()).toEqual([]);
  });
});

describe('LaneRunner: model files and live edits', () => {
  const bytes = (text: string) => new TextEncoder().encode(text).buffer as ArrayBuffer;
  const load = (text: string, config: LaneConfig = { lr: 0.1, seed: 3, every: 10, k: 1 }): ToWorker => ({
    type: 'loadModel',
    gen: ++gen,
    config,
    dataset: 'bas4',
    bytes: bytes(text),
    name: 'm.json',
  });

  it('continues a model file at its saved update with its recorded options; reset returns to it, a new configuration forgets it', () => {
    runner.handle(configure({ lr: 0.1, seed: 3, every: 10, k: 1 }));
    runner.handle({ type: 'start' });
    sent = [];
    runner.handle(load('{"iter":50,"k":3}'));
    const c = of('configured');
    expect(c).toHaveLength(1);
    expect(c[0].gen).toBe(2);
    expect(c[0].loaded?.name).toBe('m.json');
    expect(c[0].loaded?.config.k).toBe(3);
    expect(of('progress')[0].points).toEqual([{ iter: 50, sweeps: 50, atll: -9.5 }]);
    expect(statuses()).toEqual(['running']); // a running lane runs on from the file
    runner.handle({ type: 'pause' });
    sent = [];
    runner.handle({ type: 'reset', gen: ++gen });
    expect(of('configured')[0].loaded?.config.k).toBe(3);
    expect(of('progress')[0].points[0].iter).toBe(50);
    sent = [];
    runner.handle(configure({ lr: 0.1, seed: 3, every: 10, k: 1 }));
    runner.handle({ type: 'reset', gen: ++gen });
    expect(of('configured').every((m) => m.loaded === undefined)).toBe(true);
    expect(of('progress').at(-1)?.points[0].iter).toBe(0);
  });

  it('refuses a bad file with its message and leaves the lane as it was, running on', () => {
    runner.handle(configure({ lr: 0.1, seed: 3, every: 10 }));
    runner.handle({ type: 'start' });
    runTasks(3);
    const lane = core.lanes[0];
    const iter = lane.iter;
    sent = [];
    runner.handle(load('not a model'));
    expect(of('modelRefused')).toEqual([
      { type: 'modelRefused', gen: 2, message: "'m.json' was not loaded: malformed input: model file: neither JSON nor the binary format" },
    ]);
    expect(of('configured')).toEqual([]);
    expect(lane.freed).toBe(false);
    runTasks(1);
    expect(lane.iter).toBeGreaterThan(iter);
    expect(of('progress').every((m) => m.gen === 1)).toBe(true);
  });

  it('applies a live edit to the running lane without a rebuild, keeps it through a reset, and says when the core refuses one', () => {
    runner.handle(configure({ lr: 0.1, seed: 3, every: 10 }));
    runner.handle({ type: 'start' });
    runTasks(2);
    const lane = core.lanes[0];
    sent = [];
    runner.handle({ type: 'live', key: 'lr', value: 0.02 });
    expect(lane.live).toEqual([['lr', 0.02]]);
    expect(of('configured')).toEqual([]);
    runTasks(1);
    expect(core.lanes).toHaveLength(1);
    runner.handle({ type: 'live', key: 'k', value: 3 });
    expect(of('liveRefused')).toEqual([
      { type: 'liveRefused', gen: 1, key: 'k', message: 'Gibbs sweeps k cannot change while the lane trains: the lane must be rebuilt' },
    ]);
    runner.handle({ type: 'reset', gen: ++gen });
    expect(core.lanes.at(-1)?.config.lr).toBe(0.02);
  });
});

describe('LaneRunner: slow motion', () => {
  it('pauses a running lane, makes one traced update with its records and view, and sends its phases', () => {
    runner.handle(configure({ lr: 0.1, seed: 3, every: 1 }));
    runner.handle({ type: 'start' });
    runTasks(2);
    const lane = core.lanes[0];
    const iter = lane.iter;
    sent = [];
    runner.handle({ type: 'trace', gen: 1 });
    expect(lane.iter).toBe(iter + 1);
    expect(of('trace').map((m) => [m.gen, m.trace.iter])).toEqual([[1, iter + 1]]);
    expect(of('progress')[0].points.map((p) => p.iter)).toEqual([iter + 1]);
    expect(of('progress').some((m) => m.view !== null)).toBe(true);
    expect(statuses().at(-1)).toBe('paused');
    // Paused, it stays: the next slice trains nothing until Start.
    expect(runTasks(5)).toBeLessThanOrEqual(1);
    expect(lane.iter).toBe(iter + 1);
    // A trace of a lane the page no longer shows is ignored.
    sent = [];
    runner.handle({ type: 'trace', gen: 7 });
    expect(sent).toEqual([]);
  });
});

describe('LaneRunner: AIS every N updates (issue 27: sdcp-mnist plots its brackets)', () => {
  const settings = { particles: 50, betas: 101, seed: 1 };
  const scheduled = () => of('estimate').filter((m) => m.scheduled);

  it('brackets the model at update 0, every N updates and at the end point, training waiting for each', () => {
    runner.handle(configure({ lr: 0.1, seed: 1, every: 10 }));
    runner.handle({ type: 'limit', until: 100 });
    runner.handle({ type: 'autoEstimate', every: 40, dataset: 'bas4', settings });
    runner.handle({ type: 'start' });
    runTasks(100_000);
    const lane = core.lanes[0];
    expect(lane.iter).toBe(100);
    // Both runs of each bracket were taken from the model at exactly the schedule's updates.
    expect(lane.estimates.map((e) => e.iter)).toEqual([0, 0, 40, 40, 80, 80, 100, 100]);
    expect(lane.estimates.every((e) => e.freed)).toBe(true);
    const done = scheduled().filter((m) => m.report.state === 'done');
    expect(done.map((m) => [m.report.iter, m.scheduled?.sweeps])).toEqual([
      [0, 0],
      [40, 40],
      [80, 80],
      [100, 100],
    ]);
    expect(done.every((m) => m.report.ais && m.report.raise)).toBe(true);
    // Training waited: no training slice between a bracket's first step and its end.
    let inBracket = false;
    for (const t of trace) {
      if (t === 'ais') inBracket = true;
      if (t === 'train') expect(inBracket && lane.estimates.some((e) => !e.freed)).toBe(false);
    }
    expect(statuses().at(-1)).toBe('done');
    expect(tasks).toHaveLength(0);
  });

  it('a paused lane waits for Start; the schedule off ends the bracket under way', () => {
    runner.handle(configure({ lr: 0.1, seed: 1, every: 10 }));
    runner.handle({ type: 'autoEstimate', every: 40, dataset: 'bas4', settings });
    runTasks(1000);
    expect(core.lanes[0].estimates).toHaveLength(0);
    runner.handle({ type: 'start' });
    runTasks(1);
    expect(core.lanes[0].estimates).toHaveLength(2);
    runner.handle({ type: 'autoEstimate', every: null, dataset: 'bas4', settings });
    expect(scheduled().at(-1)?.report.state).toBe('cancelled');
    expect(core.lanes[0].estimates.every((e) => e.freed)).toBe(true);
    runTasks(20);
    expect(core.lanes[0].iter).toBeGreaterThan(0);
    expect(core.lanes[0].estimates).toHaveLength(2);
  });
});

describe('LaneRunner: every record’s statistics (issue 27: τ history of a live UCD lane)', () => {
  it('sends the statistics of each record of a slice, in update order', () => {
    runner.handle(configure({ lr: 0.1, seed: 1, every: 10 }));
    runner.handle({ type: 'limit', until: 50 });
    runner.handle({ type: 'start' });
    runTasks(1000);
    const sp = of('progress').flatMap((m) => m.statPoints ?? []);
    expect(sp.map((p) => p.iter)).toEqual([0, 10, 20, 30, 40, 50]);
    expect(sp.every((p) => p.stats.mean_tau === 2.5 && p.sweeps === p.iter)).toBe(true);
  });
});

describe('LaneRunner: AIS every N updates on a GPU lane (its updates land after step returns)', () => {
  it("waits for the in-flight updates to land, then brackets the model of the schedule's update", () => {
    runner.handle(configure({ lr: 0.1, seed: 1, every: 10, gpuFake: 1 }));
    runner.handle({ type: 'limit', until: 100 });
    runner.handle({ type: 'autoEstimate', every: 40, dataset: 'bas4', settings: { particles: 50, betas: 101, seed: 1 } });
    runner.handle({ type: 'start' });
    runTasks(100_000);
    const lane = core.lanes[0] as FakeGpuLane;
    expect(lane.gpu).toBe('fake GPU');
    expect(lane.landed).toBe(100);
    expect(lane.taken).toEqual([0, 0, 40, 40, 80, 80, 100, 100].map((landed) => ({ landed, busy: false })));
    const done = of('estimate').filter((m) => m.scheduled && m.report.state === 'done');
    expect(done.map((m) => m.report.iter)).toEqual([0, 40, 80, 100]);
    expect(statuses().at(-1)).toBe('done');
  });
});

describe('LaneRunner: idle while the pool evaluates', () => {
  it("schedules no slice while it waits for the pool's exact evaluation (the pool's workers have the cores)", () => {
    runner.handle(configure({ lr: 0.1, seed: 1, every: 10, deferBlocks: 2 }));
    runner.handle({ type: 'start' });
    runTasks(5);
    expect(tasks).toHaveLength(0);
    runner.handle({ type: 'exactParts', gen: 1, id: 1, parts: new Float64Array(4) });
    expect(tasks).toHaveLength(1);
    runTasks(50);
    expect(core.lanes[0].iter).toBe(10);
    expect(tasks).toHaveLength(0);
  });
});

describe('LaneRunner: turns (many lanes take turns to compute)', () => {
  const turnMsgs = () => sent.filter((m) => m.type === 'wantTurn' || m.type === 'turnOver');

  it('a lane that takes turns asks once, computes only during its turn, and hands it back after TURN_MS', () => {
    runner.handle(configure({ lr: 0.1, seed: 1, every: 10 }));
    runner.handle({ type: 'gate', on: true });
    runner.handle({ type: 'start' });
    runTasks(20);
    const lane = core.lanes[0];
    expect(lane.iter).toBe(0);
    expect(turnMsgs()).toEqual([{ type: 'wantTurn' }]);
    runner.handle({ type: 'turn' });
    // At least 5 ms of fake time per slice: the turn lasts TURN_MS, then goes back with work left.
    const t0 = clock;
    const n = runTasks(100);
    expect(n).toBeGreaterThan(1);
    expect(n).toBeLessThanOrEqual(TURN_MS / 5 + 1);
    expect(clock - t0).toBeGreaterThanOrEqual(TURN_MS);
    expect(lane.iter).toBeGreaterThan(0);
    expect(turnMsgs()).toEqual([{ type: 'wantTurn' }, { type: 'turnOver', more: true }]);
    const at = lane.iter;
    runTasks(20);
    expect(lane.iter).toBe(at); // waits for the next turn, without asking again
    expect(turnMsgs()).toHaveLength(2);
  });

  it('Pause during a turn hands it back at once; a turn granted with nothing to do goes back at once', () => {
    runner.handle(configure({ lr: 0.1, seed: 1, every: 10 }));
    runner.handle({ type: 'gate', on: true });
    runner.handle({ type: 'start' });
    runner.handle({ type: 'turn' });
    runTasks(2);
    runner.handle({ type: 'pause' });
    expect(turnMsgs()).toEqual([{ type: 'wantTurn' }, { type: 'turnOver', more: false }]);
    // Handed back with the answer, before the view of the final position (which may enumerate).
    expect(sent.slice(-3).map((m) => m.type)).toEqual(['status', 'turnOver', 'progress']);
    expect(statuses().at(-1)).toBe('paused');
    // A lane waiting for a turn withdraws when paused.
    runner.handle({ type: 'start' });
    expect(turnMsgs().at(-1)).toEqual({ type: 'wantTurn' });
    runner.handle({ type: 'pause' });
    expect(turnMsgs().at(-1)).toEqual({ type: 'turnOver', more: false });
    const at = core.lanes[0].iter;
    runner.handle({ type: 'turn' });
    expect(turnMsgs().at(-1)).toEqual({ type: 'turnOver', more: false });
    expect(turnMsgs()).toHaveLength(5);
    runTasks(20);
    expect(core.lanes[0].iter).toBe(at);
  });

  it('computes freely again when the lanes stop taking turns, and ignores a turn then', () => {
    runner.handle(configure({ lr: 0.1, seed: 1, every: 10 }));
    runner.handle({ type: 'gate', on: true });
    runner.handle({ type: 'start' });
    runner.handle({ type: 'gate', on: false });
    runner.handle({ type: 'turn' });
    expect(runTasks(100)).toBe(100);
    expect(core.lanes[0].iter).toBeGreaterThan(0);
    expect(turnMsgs()).toEqual([{ type: 'wantTurn' }]);
  });

  it("passes an estimate's β schedule to both runs (Salakhutdinov & Murray's, or linear)", () => {
    runner.handle(configure({ lr: 0.1, seed: 1, every: 10 }));
    runner.handle({ type: 'estimate', gen: 1, id: 1, dataset: 'bas4', settings: { particles: 10, betas: 14_501, seed: 1, schedule: 'sm2008' } });
    runner.handle({ type: 'estimate', gen: 1, id: 2, dataset: 'bas4', settings: { particles: 10, betas: 100, seed: 1 } });
    expect(core.lanes[0].schedules).toEqual(['sm2008', 'sm2008', undefined, undefined]);
  });

  it('an estimate of a paused lane that takes turns waits for a turn too', () => {
    runner.handle(configure({ lr: 0.1, seed: 1, every: 10 }));
    runner.handle({ type: 'gate', on: true });
    runner.handle({ type: 'estimate', gen: 1, id: 1, dataset: 'bas4', settings: { particles: 10, betas: 100, seed: 1 } });
    expect(turnMsgs()).toEqual([{ type: 'wantTurn' }]);
    expect(tasks).toHaveLength(0);
    runner.handle({ type: 'turn' });
    runTasks(500);
    expect(of('estimate').at(-1)?.report.state).not.toBe('running');
  });
});
