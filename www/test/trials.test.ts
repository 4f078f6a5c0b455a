// The page's trial workers: the pool (trialPool.ts) with fake workers, a trial worker's runner
// (trialRunner.ts) with a fake core, and the App running a study over them.
import { beforeEach, describe, expect, it } from 'vitest';
import { App } from '../src/app/app';
import { claimRows, claimsNote } from '../src/app/claims';
import { presetPlan } from '../src/app/presets';
import { Study, type Trial } from '../src/app/study';
import type { AisEstimate, CoreRecord, Verdict } from '../src/generated/core';
import type { FromWorker, ToWorker, TrialTaus } from '../src/protocol/messages';
import type { CoreEstimate, Slice } from '../src/workers/runner';
import { TrialPool, trialWorkers } from '../src/workers/trialPool';
import { type CoreMeasure, type TrialCore, type TrialLane, TrialRunner } from '../src/workers/trialRunner';
import { FakeWorker } from './fakeWorker';
import { catalog } from './fixture';

describe('trialWorkers', () => {
  it('is one per core, at least one, at most 16', () => {
    expect([trialWorkers(1), trialWorkers(2), trialWorkers(8), trialWorkers(undefined), trialWorkers(64)]).toEqual([1, 2, 8, 2, 16]);
  });
});

describe('TrialPool', () => {
  let workers: FakeWorker[];
  let study: Study;
  let pool: TrialPool;
  let ended: [number, number, string | null][];
  let seenTaus: (TrialTaus | undefined)[];
  const trialMsgs = (w: FakeWorker) => w.posted.filter((m): m is Extract<ToWorker, { type: 'trial' }> => m.type === 'trial');
  beforeEach(() => {
    workers = [];
    ended = [];
    seenTaus = [];
    study = new Study({ lanes: [0, 1].map((id) => ({ id, label: `L${id}`, claimLabel: null, stats: [] })), runs: 2, until: 10, every: 10, seed: 7 });
    pool = new TrialPool(
      (name) => {
        const w = new FakeWorker(name);
        workers.push(w);
        return w;
      },
      2,
      {
        next: () => {
          const t = study.next();
          return t && { trial: t, config: { algo: 'cd', lane: t.lane }, dataset: 'bas4', source: null, seed: 7, until: 10 };
        },
        points: (t, pts, taus) => {
          study.add(t, pts, 0);
          seenTaus.push(taus);
        },
        done: (t, ms, error) => {
          study.finish(t, ms, error);
          ended.push([t.lane, t.index, error]);
        },
      },
    );
  });

  it('runs one trial per worker in the study’s order and gives a free worker the next', () => {
    expect(workers).toEqual([]); // nothing before start
    pool.start();
    expect(workers.map((w) => w.name)).toEqual(['trials 1', 'trials 2']);
    const [a, b] = workers.map((w) => trialMsgs(w)[0]);
    expect([a.config.lane, a.trial, b.config.lane, b.trial]).toEqual([0, 0, 1, 0]);
    expect([a.seed, a.until, a.dataset]).toEqual([7, 10, 'bas4']);
    workers[1].reply({ type: 'trialPoints', id: b.id, points: [{ iter: 0, sweeps: 0, atll: -5, stats: {}, ms: 0 }], taus: { iter: 0, counts: [0, 2] } });
    expect(study.trials[1][0].points).toHaveLength(1);
    expect(seenTaus).toEqual([{ iter: 0, counts: [0, 2] }]);
    workers[1].reply({ type: 'trialDone', id: b.id, ms: 3, error: null, fatal: false });
    expect(ended).toEqual([[1, 0, null]]);
    expect(trialMsgs(workers[1])[1]).toMatchObject({ trial: 1, config: { lane: 0 } });
    expect(pool.busy).toBe(2);
  });

  it('holds every trial on pause and resumes it; a broken worker fails its trial and is replaced', () => {
    pool.start();
    pool.pause();
    expect(workers.every((w) => w.last('trialPause')?.paused === true)).toBe(true);
    pool.start();
    expect(workers.every((w) => w.last('trialPause')?.paused === false)).toBe(true);
    const first = trialMsgs(workers[0])[0];
    workers[0].reply({ type: 'trialDone', id: first.id, ms: 0, error: 'the WebAssembly core stopped', fatal: true });
    expect(workers[0].terminated).toBe(true);
    expect(ended).toEqual([[0, 0, 'the WebAssembly core stopped']]);
    expect(workers).toHaveLength(3);
    workers[1].onerror?.({ message: 'boom', preventDefault: () => undefined } as unknown as ErrorEvent);
    expect(ended[1]).toEqual([1, 0, 'a trial worker failed: boom']);
    expect(workers[1].terminated).toBe(true);
    // The core's fatal status (a panic) ends the worker too, with the core's words.
    const running = workers.filter((w) => !w.terminated);
    running[0].reply({ type: 'status', gen: 0, status: 'fatal', message: 'the WebAssembly core did not load' });
    expect(running[0].terminated).toBe(true);
    expect(ended[2][2]).toBe('the WebAssembly core did not load');
    expect(pool.busy).toBe(workers.filter((w) => !w.terminated).length);
    const open: Trial[] = pool.dispose();
    expect(open.length).toBeGreaterThan(0);
    expect(workers.every((w) => w.terminated)).toBe(true);
  });
});

/** A fake core lane: one record every `every` updates (ATLL −10 + iter/100), diverging at `diverge`. */
class FakeLane implements TrialLane {
  iter = 0;
  made = false;
  constructor(
    readonly config: Record<string, unknown>,
    private readonly every: number,
    private readonly diverge = Infinity,
  ) {}
  rec(iter: number): CoreRecord {
    return { iter, sweeps: iter, vh_steps: iter, atll: -10 + iter / 100, log_z: 0, stats: { mean_tau: iter } };
  }
  step(n: number): Slice {
    const records: CoreRecord[] = [];
    if (!this.made) {
      records.push(this.rec(0));
      this.made = true;
    }
    for (let i = 0; i < n; i++) {
      if (this.iter + 1 >= this.diverge) {
        return { records, iter: this.iter, error: { kind: 'diverged', key: null, message: 'diverged' }, failed: true, view: null };
      }
      this.iter += 1;
      if (this.iter % this.every === 0) records.push(this.rec(this.iter));
    }
    return { records, iter: this.iter, error: null, failed: false, view: null };
  }
  record(): CoreRecord {
    return this.rec(this.iter);
  }
  /** The update the estimates' model is of (a GPU lane's: its latest record's). */
  get modelIter(): number {
    return this.iter;
  }
  /** Every estimate asked for, with the update of the model it anneals. */
  readonly estimates: { dataset: string; particles: number; betas: number; seed: number; iter: number }[] = [];
  /** A fake AIS run: done after 3 steps, its ATLL −20 + (its model's update)/1000. */
  ais(dataset: string, particles: number, betas: number, seed: number): CoreEstimate {
    const iter = this.modelIter;
    this.estimates.push({ dataset, particles, betas, seed, iter });
    let steps = 0;
    const est = { iter, dataset, gpu: this.gpu ?? null, log_z: 0, log_z_lo: 0, log_z_hi: 0, atll: -20 + iter / 1000 } as unknown as AisEstimate;
    return {
      step: () => {
        steps += 1;
        return { done: steps >= 3, doneSteps: steps, totalSteps: 3 };
      },
      result: () => est,
      free: () => undefined,
    };
  }
  /** Every exact measure asked for, with the update of the model it enumerates. */
  readonly exacts: { dataset: string; iter: number; steps: number }[] = [];
  /** A fake exact measure: done after 4 steps (the GPU's dispatches and its copy back, or the
   * CPU's blocks), its ATLL −30 + (its model's update)/1000; throws at its first step after
   * `loseGpuForTest` (the device was lost). */
  exactMeasure(dataset: string): CoreMeasure {
    const iter = this.modelIter;
    const e = { dataset, iter, steps: 0 };
    this.exacts.push(e);
    return {
      step: (max: number) => {
        if (this.lost) throw { kind: 'invalid', key: null, message: 'the GPU device was lost' };
        e.steps = Math.min(4, e.steps + Math.max(1, max));
        return { done: e.steps >= 4, doneSteps: e.steps, totalSteps: 4 };
      },
      result: () => {
        if (e.steps < 4) throw { kind: 'invalid', key: null, message: 'the exact enumeration has not finished' };
        return { atll: -30 + iter / 1000, logZ: 0 };
      },
      free: () => undefined,
    };
  }
  protected lost = false;
  readonly gpu: string | null = null;
  /** UCD's stopping times of the latest update: counts by τ (τ = 1 + iter mod 3 for all 4 chains). */
  get taus(): Uint32Array | null {
    if (this.config.algo !== 'ucd') return null;
    const c = new Uint32Array(4);
    c[1 + (this.iter % 3)] = 4;
    return c;
  }
  free(): void {}
}

/** A fake GPU lane: its records arrive one `step` after their update (busy until then), and
 * its GPU fails (an error that is not a divergence) at update `lose`. */
class FakeGpuLane extends FakeLane {
  override readonly gpu = 'Fake GPU';
  private held: CoreRecord[] = [];
  private recorded = 0;
  constructor(
    config: Record<string, unknown>,
    every: number,
    private lose = Infinity,
  ) {
    super(config, every);
  }
  get busy(): boolean {
    return this.held.length > 0;
  }
  override get modelIter(): number {
    return this.recorded;
  }
  override step(n: number): Slice {
    const out = this.held;
    for (const r of out) this.recorded = r.iter;
    if (this.iter + n >= this.lose)
      return { records: out, iter: this.iter, error: { kind: 'invalid', key: null, message: 'the GPU device was lost' }, failed: true, view: null };
    const s = super.step(n);
    this.held = s.records;
    return { ...s, records: out };
  }
  override record(): CoreRecord {
    throw new Error('a GPU lane has no record on demand');
  }
  /** Test hook: the GPU fails at the next update (or the next step of a measure). */
  loseGpuForTest(): void {
    this.lose = this.iter + 1;
    this.lost = true;
  }
}

describe('TrialRunner', () => {
  let posted: FromWorker[];
  let queue: (() => void)[];
  let lanes: FakeLane[];
  let diverge: number;
  let lose: number;
  let gpuLost: string | null;
  let refusal: string | null;
  let runner: TrialRunner;
  const run = () => {
    for (let i = 0; i < 1000 && queue.length; i++) queue.shift()?.();
  };
  beforeEach(() => {
    posted = [];
    queue = [];
    lanes = [];
    diverge = Infinity;
    lose = Infinity;
    gpuLost = null;
    refusal = null;
    let t = 0;
    const core: TrialCore = {
      lastPanic: () => undefined,
      hasData: () => true,
      loadData: () => Promise.resolve([]),
      trialSeed: (seed, trial) => seed * 1000 + trial,
      aisSeed: (seed, k) => seed * 10 + k,
      gpuRefused: () => refusal,
      gpuFailed: (why) => {
        gpuLost = why;
      },
      newTrialLane: (config, _dataset, gpu) => {
        if (config.algo === 'nope') throw { kind: 'invalid', key: 'algo', message: "unknown algorithm 'nope'" };
        refusal = null;
        if (gpu && gpuLost === null && config.algo !== 'ucd') {
          const g = new FakeGpuLane(config, Number(config.every), lose);
          lanes.push(g);
          return g;
        }
        if (gpu) refusal = gpuLost !== null ? `the GPU failed earlier (${gpuLost})` : 'ucd runs on the CPU in the page';
        const l = new FakeLane(config, Number(config.every), diverge);
        lanes.push(l);
        return l;
      },
    };
    runner = new TrialRunner(core, { post: (m) => posted.push(m), now: () => (t += 5), schedule: (fn) => queue.push(fn) });
  });
  const trial = (id: number, until: number, algo = 'cd'): ToWorker => ({
    type: 'trial',
    id,
    config: { algo, lane: 2, every: 10, seed: 1 },
    dataset: 'bas4',
    seed: 3,
    trial: 4,
    until,
  });

  it("builds trial i with the core's trial seed and streams its records; an end off the interval adds its last record, as the CLI does", () => {
    expect(runner.handle(trial(1, 25))).toBe(true);
    expect(runner.handle({ type: 'start' })).toBe(false);
    run();
    expect(lanes[0].config).toMatchObject({ seed: 3004, lane: 2 });
    const pts = posted.flatMap((m) => (m.type === 'trialPoints' ? m.points.map((p) => p.iter) : []));
    expect(pts).toEqual([0, 10, 20, 25]);
    expect(posted.at(-1)).toMatchObject({ type: 'trialDone', id: 1, error: null, fatal: false });
  });

  it("sends UCD's stopping times of the trial's latest update with its records, none for CD", () => {
    runner.handle(trial(1, 25, 'ucd'));
    run();
    const msgs = posted.filter((m) => m.type === 'trialPoints');
    expect(msgs.length).toBeGreaterThan(0);
    for (const m of msgs) {
      // The counts are of the lane's latest update (at or after its last record).
      const t = m.taus!;
      expect(t.iter).toBeGreaterThanOrEqual(m.points.at(-1)!.iter);
      expect(t.counts).toEqual([0, 1, 2, 3].map((i) => (i === 1 + (t.iter % 3) ? 4 : 0)));
    }
    posted = [];
    runner.handle(trial(2, 25));
    run();
    expect(posted.filter((m) => m.type === 'trialPoints').every((m) => m.taus === undefined)).toBe(true);
  });

  it('ends a diverging trial with the records made so far (no error); a refused configuration fails the trial', () => {
    diverge = 15;
    runner.handle(trial(2, 40));
    run();
    const pts = posted.flatMap((m) => (m.type === 'trialPoints' ? m.points.map((p) => p.iter) : []));
    expect(pts).toEqual([0, 10]);
    expect(posted.at(-1)).toMatchObject({ type: 'trialDone', id: 2, error: null });
    runner.handle(trial(3, 10, 'nope'));
    expect(posted.at(-1)).toMatchObject({ type: 'trialDone', id: 3, error: "unknown algorithm 'nope'", fatal: false });
  });

  const iters = () => posted.flatMap((m) => (m.type === 'trialPoints' ? m.points.map((p) => p.iter) : []));
  const atlls = () => posted.flatMap((m) => (m.type === 'trialPoints' ? m.points.map((p) => p.atll) : []));
  const measure = { dataset: 'mnist-test', particles: 100, betas: 1000 };

  it("measures every checkpoint by AIS of the measure's data, on the checkpoint's model, seeded as the CLI seeds it", () => {
    runner.handle({ ...trial(1, 25), measure } as ToWorker);
    run();
    expect(iters()).toEqual([0, 10, 20, 25]);
    const lane = lanes[0];
    // One AIS per checkpoint, on the model at that update, with the core's ais_seed(trial seed, k).
    expect(lane.estimates).toEqual([0, 10, 20, 25].map((iter, k) => ({ dataset: 'mnist-test', particles: 100, betas: 1000, seed: 3004 * 10 + k, iter })));
    // The point's ATLL is the estimate's; its statistics are the record's.
    expect(atlls()).toEqual([0, 10, 20, 25].map((i) => -20 + i / 1000));
    // `ms` is training alone (as the CLI's); `wallMs` counts the estimates too (the time left).
    const pts = posted.flatMap((m) => (m.type === 'trialPoints' ? m.points : []));
    expect(pts.every((p, i) => p.wallMs! > p.ms && (i === 0 || (p.wallMs! > pts[i - 1].wallMs! && p.ms > pts[i - 1].ms)))).toBe(true);
    expect(posted.at(-1)).toMatchObject({ type: 'trialDone', id: 1, error: null });
    // A CPU trial asked nothing of a GPU: no device message.
    expect(posted.some((m) => m.type === 'trialDevice')).toBe(false);
  });

  const exact = { dataset: 'mnist-test', exact: true as const };

  it("measures every checkpoint exactly on the measure's data, on the checkpoint's model, a few steps per slice, never before its record is in", () => {
    for (const compute of [undefined, 'gpu' as const]) {
      posted = [];
      lanes = [];
      runner.handle({ ...trial(1, 30), measure: exact, ...(compute ? { compute } : {}) } as ToWorker);
      run();
      const lane = lanes[0];
      expect(lane.gpu).toBe(compute ? 'Fake GPU' : null);
      // One enumeration per checkpoint, on the model of that update (a GPU lane's: its record's,
      // once in), each run to its end; no AIS.
      expect(lane.exacts).toEqual([0, 10, 20, 30].map((iter) => ({ dataset: 'mnist-test', iter, steps: 4 })));
      expect(lane.estimates).toEqual([]);
      expect(iters()).toEqual([0, 10, 20, 30]);
      expect(atlls()).toEqual([0, 10, 20, 30].map((i) => -30 + i / 1000));
      const pts = posted.flatMap((m) => (m.type === 'trialPoints' ? m.points : []));
      expect(pts.every((p) => p.wallMs! > p.ms)).toBe(true);
      expect(posted.at(-1)).toMatchObject({ type: 'trialDone', id: 1, error: null });
    }
  });

  it("reruns a GPU trial whose GPU fails during a checkpoint's enumeration on the CPU from update 0, measured there", () => {
    runner.handle({ ...trial(1, 20), compute: 'gpu', measure: exact } as ToWorker);
    // Run until the first enumeration has started on the GPU, then lose the device.
    for (let i = 0; i < 1000 && queue.length && !(lanes[0].exacts[0]?.steps > 0); i++) queue.shift()?.();
    expect(lanes[0].exacts[0].steps).toBeGreaterThan(0);
    (lanes[0] as FakeGpuLane).loseGpuForTest();
    run();
    expect(gpuLost).toBe('the GPU device was lost');
    expect(posted.filter((m) => m.type === 'trialDevice')).toEqual([
      { type: 'trialDevice', id: 1, gpu: 'Fake GPU', notice: null, restart: false },
      {
        type: 'trialDevice',
        id: 1,
        gpu: null,
        notice: 'The GPU stopped (the GPU device was lost): the trial runs again on the CPU from update 0.',
        restart: true,
      },
    ]);
    expect(lanes[1].gpu).toBeNull();
    expect(lanes[1].exacts.map((e) => e.iter)).toEqual([0, 10, 20]);
    expect(iters()).toEqual([0, 10, 20]);
    expect(posted.at(-1)).toMatchObject({ type: 'trialDone', id: 1, error: null });
  });

  it('runs a trial asked for the GPU as a GPU lane: says so, waits for its records without blocking, measures each on the GPU lane', () => {
    runner.handle({ ...trial(1, 30), compute: 'gpu', measure } as ToWorker);
    run();
    expect(posted[0]).toEqual({ type: 'trialDevice', id: 1, gpu: 'Fake GPU', notice: null, restart: false });
    expect(iters()).toEqual([0, 10, 20, 30]);
    expect(lanes[0].estimates.map((e) => e.iter)).toEqual([0, 10, 20, 30]);
    expect(posted.at(-1)).toMatchObject({ type: 'trialDone', id: 1, error: null });
    // Without a measure, the records' own ATLL, once they are in.
    posted = [];
    runner.handle({ ...trial(2, 30), compute: 'gpu' } as ToWorker);
    run();
    expect(iters()).toEqual([0, 10, 20, 30]);
    expect(atlls()).toEqual([0, 10, 20, 30].map((i) => -10 + i / 100));
    expect(posted.at(-1)).toMatchObject({ type: 'trialDone', id: 2, error: null });
  });

  it('runs UCD asked for the GPU on the CPU and says why', () => {
    runner.handle({ ...trial(1, 20, 'ucd'), compute: 'gpu' } as ToWorker);
    run();
    expect(posted[0]).toEqual({ type: 'trialDevice', id: 1, gpu: null, notice: 'On the CPU: ucd runs on the CPU in the page.', restart: false });
    expect(iters()).toEqual([0, 10, 20]);
  });

  it('reruns a trial whose GPU failed on the CPU from update 0, saying so; later trials of the worker run on the CPU', () => {
    lose = 15;
    runner.handle({ ...trial(1, 30), compute: 'gpu', measure } as ToWorker);
    run();
    const devices = posted.filter((m) => m.type === 'trialDevice');
    expect(devices).toEqual([
      { type: 'trialDevice', id: 1, gpu: 'Fake GPU', notice: null, restart: false },
      {
        type: 'trialDevice',
        id: 1,
        gpu: null,
        notice: 'The GPU stopped (the GPU device was lost): the trial runs again on the CPU from update 0.',
        restart: true,
      },
    ]);
    // The points after the restart: every checkpoint, from the CPU lane.
    const restart = posted.findIndex((m) => m.type === 'trialDevice' && m.restart);
    const after = posted.slice(restart).flatMap((m) => (m.type === 'trialPoints' ? m.points.map((p) => p.iter) : []));
    expect(after).toEqual([0, 10, 20, 30]);
    expect(lanes[1].gpu).toBeNull();
    expect(posted.at(-1)).toMatchObject({ type: 'trialDone', id: 1, error: null });
    expect(gpuLost).toBe('the GPU device was lost');
    posted = [];
    runner.handle({ ...trial(2, 10), compute: 'gpu' } as ToWorker);
    run();
    expect(posted[0]).toMatchObject({ type: 'trialDevice', id: 2, gpu: null, notice: 'On the CPU: the GPU failed earlier (the GPU device was lost).' });
  });

  it("takes the test hook's lost GPU for its GPU trial only (a lane's worker's lane takes it otherwise)", () => {
    expect(runner.handle({ type: 'loseGpu' })).toBe(false); // no trial
    runner.handle({ ...trial(1, 30), compute: 'gpu', measure } as ToWorker);
    queue.shift()?.();
    expect(runner.handle({ type: 'loseGpu' })).toBe(true);
    run();
    expect(posted.filter((m) => m.type === 'trialDevice').map((m) => m.type === 'trialDevice' && m.restart)).toEqual([false, true]);
    expect(posted.at(-1)).toMatchObject({ type: 'trialDone', id: 1, error: null });
    runner.handle(trial(2, 10)); // a CPU trial: not its to take
    expect(runner.handle({ type: 'loseGpu' })).toBe(false);
  });

  it('holds on pause, drops a stopped trial', () => {
    runner.handle({ type: 'trialPause', paused: true });
    runner.handle(trial(4, 1000));
    run();
    expect(posted).toEqual([]);
    runner.handle({ type: 'trialPause', paused: false });
    queue.shift()?.();
    expect(posted).toHaveLength(1);
    runner.handle({ type: 'trialStop', id: 4 });
    run();
    expect(posted.some((m) => m.type === 'trialDone')).toBe(false);
  });
});

describe('App studies', () => {
  let workers: FakeWorker[];
  let app: App;
  let asked: [string, number, number][];
  beforeEach(() => {
    workers = [];
    asked = [];
    app = new App(
      catalog,
      (name) => {
        const w = new FakeWorker(name);
        workers.push(w);
        return w;
      },
      { changed: () => undefined, download: () => undefined },
      {
        trialWorkers: 1,
        evaluateClaims: (preset, lr, bands, end) => {
          asked.push([preset, lr, end]);
          return bands.map((b) => ({ claim: b.label, status: 'undecided', holds: null, detail: '', trials: b.trials }) as Verdict);
        },
      },
    );
    const ucd = catalog.presets.find((p) => p.name === 'ucd-bas4')!;
    app.load(presetPlan(ucd, catalog, 0, 1).state);
  });
  const trialWorker = () => workers.filter((w) => w.name.startsWith('trials')).at(-1)!;

  it("starts a preset's study on Start instead of the lanes, its trials configured as the lanes, and drops it on any change", () => {
    expect(app.trials).toBe(25);
    expect(app.studyMode()).toBe(true);
    app.start();
    const lanesStarted = workers.filter((w) => w.name.startsWith('lane')).some((w) => w.last('start'));
    expect(lanesStarted).toBe(false);
    expect(app.study?.status).toBe('running');
    expect(app.running()).toBe(true);
    const msg = trialWorker().last('trial')!;
    expect(msg).toMatchObject({ seed: 1, trial: 0, until: 10000, dataset: 'bas4', config: { algo: 'cd', lane: 0, k: 1, chains: 1000, lr: 0.1, every: 100 } });
    expect(app.verdicts()).toHaveLength(3);
    expect(asked).toEqual([['ucd-bas4', 0.1, 10000]]);
    app.verdicts();
    expect(asked).toHaveLength(1); // cached until the study changes
    app.pause();
    expect(app.study?.status).toBe('paused');
    expect(app.running()).toBe(false);
    app.setLaneOption(app.lanes[0], 'k', '2');
    expect(app.study).toBeNull();
    expect(trialWorker().terminated).toBe(true);
  });

  it('refuses a study without an end point or a seed, and takes trials per lane from its input', () => {
    app.setStop('');
    app.start();
    expect(app.study).toBeNull();
    expect(app.studyMessage).toMatch(/end point/);
    app.setTrials('0');
    expect(app.settingError('trials')).toMatch(/whole number from 1/);
    app.setTrials('');
    expect([app.trials, app.studyMode()]).toEqual([null, false]);
    expect(app.state().trials).toBeNull();
  });
});

describe('App studies of MNIST (issue 30)', () => {
  let app: App;
  let workers: FakeWorker[];
  const sdcp = catalog.presets.find((p) => p.name === 'sdcp-mnist')!;
  const pcd25 = catalog.presets.find((p) => p.name === 'pcd-mnist-25')!;
  beforeEach(() => {
    workers = [];
    app = new App(
      catalog,
      (name) => {
        const w = new FakeWorker(name);
        workers.push(w);
        return w;
      },
      { changed: () => undefined, download: () => undefined },
      { trialWorkers: 2 },
    );
  });
  const trialMsg = () =>
    workers
      .filter((w) => w.name.startsWith('trials'))
      .at(-1)
      ?.last('trial');

  it("runs trials of a preset measured by AIS on MNIST, each measuring its checkpoints with the preset's AIS; none at the page's scale by default", () => {
    app.load(presetPlan(sdcp, catalog, 0, 1).state);
    expect([app.trials, app.studyMode()]).toEqual([null, false]); // live lanes, as before
    expect(app.setTrials('2')).toBe(true);
    expect(app.settingError('trials')).toBe('');
    expect(app.studyMode()).toBe(true);
    app.start();
    const msg = trialMsg()!;
    expect(msg).toMatchObject({
      dataset: 'mnist',
      until: sdcp.iters,
      measure: { dataset: sdcp.eval_data, particles: sdcp.ais!.particles, betas: sdcp.ais!.betas },
    });
    // Measured by the study: no exact curve of the lane's own (as the CLI's Study::lane_config).
    expect(msg.config.exact_bits).toBe(0);
    // No adapter: the trials run on the CPU.
    expect(msg.compute).toBeUndefined();
  });

  it("runs the paper's scale on the GPU where an adapter is: its trials, length and AIS, asked of the GPU", () => {
    app.gpuFound('Test GPU');
    app.load(presetPlan(sdcp, catalog, 0, 1, 'paper').state);
    const ps = sdcp.paper_scale!;
    expect([app.trials, app.scale, app.studyMode(), app.studyOn()]).toEqual([ps.trials, 'paper', true, 'gpu']);
    app.start();
    expect(trialMsg()).toMatchObject({
      until: ps.iters,
      compute: 'gpu',
      measure: { particles: ps.ais!.particles, betas: ps.ais!.betas },
      config: { every: ps.every },
    });
    expect(app.state()).toMatchObject({ scale: 'paper', trials: ps.trials });
  });

  it("runs trials of a preset measured exactly on MNIST, each measuring the test digits' exact ATLL at its checkpoints; the paper's scale on the GPU", () => {
    app.load(presetPlan(pcd25, catalog, 0, 1).state);
    expect([app.trials, app.studyMode()]).toEqual([null, false]); // live lanes, as before
    expect(app.setTrials('2')).toBe(true);
    expect(app.settingError('trials')).toBe('');
    expect(app.studyMode()).toBe(true);
    // The AIS test hook does not apply to an exact measure.
    app.studyAisForTest = { particles: 4, betas: 10 };
    app.start();
    const msg = trialMsg()!;
    expect(msg).toMatchObject({ dataset: 'mnist', until: pcd25.iters, measure: { dataset: pcd25.eval_data, exact: true } });
    expect(msg.measure).toEqual({ dataset: pcd25.eval_data, exact: true });
    expect(msg.config.exact_bits).toBe(0);
    expect(msg.compute).toBeUndefined();
    app.gpuFound('Test GPU');
    app.load(presetPlan(pcd25, catalog, 0, 1, 'paper').state);
    const ps = pcd25.paper_scale!;
    expect([app.trials, app.scale, app.studyMode(), app.studyOn()]).toEqual([ps.trials, 'paper', true, 'gpu']);
    app.start();
    expect(trialMsg()).toMatchObject({ until: ps.iters, compute: 'gpu', measure: { dataset: pcd25.eval_data, exact: true }, config: { every: ps.every } });
  });

  it('refuses a GPU study off the interval', () => {
    app.gpuFound('Test GPU');
    app.load(presetPlan(sdcp, catalog, 0, 1).state);
    app.setTrials('2');
    app.setStop(String(sdcp.every * 2 + 1));
    app.start();
    expect(app.study).toBeNull();
    expect(app.studyMessage).toMatch(/^Trials on the GPU need an end point that is a multiple of the evaluation interval/);
  });
});

describe('claims as listed', () => {
  const ucd = catalog.presets.find((p) => p.name === 'ucd-bas4')!;
  it('lists every claim at the rate, undecided until verdicts come, and says when they rest on one trial', () => {
    const rows = claimRows(ucd, null, { studies: true, started: false, lr: 0.1 });
    expect(rows.map((r) => r.words)).toEqual(ucd.claims.map(() => 'not decided yet'));
    expect(rows[0].detail).toBe('start the trials to check it');
    const verdicts: Verdict[] = ucd.claims.map((c) => ({ claim: c.text, status: 'holds', holds: true, detail: 'numbers', trials: 1 }));
    const done = claimRows(ucd, verdicts, { studies: true, started: true, lr: 0.1 });
    expect(done.map((r) => r.mark)).toEqual(ucd.claims.map(() => '✓'));
    expect(claimsNote(ucd, verdicts, 1)).toMatch(/describe one trial per lane, not a median/);
    expect(
      claimsNote(
        ucd,
        verdicts.map((v) => ({ ...v, trials: 5 })),
        25,
      ),
    ).toBe('Checked on the medians of 5 of 25 trials per lane so far, as `rbm reproduce ucd-bas4` checks them.');
    expect(claimRows(ucd, null, { studies: false, started: false, lr: 0.1 })[0].detail).toMatch(/rbm reproduce ucd-bas4/);
  });
});
