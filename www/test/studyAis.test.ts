// A GPU study's AIS in batches (issue 30): the AIS worker's queue (aisBatcher.ts), the page's
// relay (studyAis.ts) and the trial's side (trialRunner.ts with `aisBatch`), with fake cores.
import { beforeEach, describe, expect, it } from 'vitest';
import type { AisEstimate, AisProgress, CoreRecord } from '../src/generated/core';
import type { AisRequest, FromWorker, ToWorker } from '../src/protocol/messages';
import { type AisBatchCore, AisBatcher, type AisBatchRun, GATHER_MS, shapeOf } from '../src/workers/aisBatcher';
import type { Slice } from '../src/workers/runner';
import { StudyAis, studyAisText } from '../src/workers/studyAis';
import { type StudyAisRun, type TrialCore, type TrialLane, TrialRunner } from '../src/workers/trialRunner';
import { FakeWorker } from './fakeWorker';

/** A request of an m×n model seeded `seed` (its weights are its seed, to tell models apart). */
function request(seed: number, m = 6, n = 4, particles = 5, betas = 40): AisRequest {
  return {
    m,
    n,
    w: new Float32Array(m * n).fill(seed),
    b: new Float32Array(m),
    c: new Float32Array(n),
    base: new Float32Array(m),
    particles,
    betas,
    seed,
  };
}

/** What a model's log-weights are, in any batch: a function of its request alone (as the GPU's
 * Anneal::batch gives each model what a batch of it alone gives). */
function logWeightsOf(seed: number, w0: number, particles: number): number[] {
  return Array.from({ length: particles }, (_, i) => -(seed * 100 + w0 + i));
}

/** A fake core: batches take `steps` calls of `step` (a chunk of β each), record their
 * members, and fail (as a lost device) once `lose` is set. */
class FakeCore implements AisBatchCore {
  made: { particles: number; betas: number; models: number[] }[] = [];
  roomFor = 3;
  lose = false;
  freed = 0;
  room(): number {
    return this.roomFor;
  }
  newBatch(particles: number, betas: number): AisBatchRun {
    const entry = { particles, betas, models: [] as number[] };
    this.made.push(entry);
    const reqs: { seed: number; w0: number }[] = [];
    let done = 0;
    return {
      add: (m, n, w, _b, _c, _base, seed) => {
        if (w.length !== m * n) throw { kind: 'parse', key: null, message: `parameter sizes w=${w.length} do not fit` };
        reqs.push({ seed, w0: w[0] });
        entry.models.push(seed);
      },
      step: (max: number): AisProgress => {
        if (this.lose) throw { kind: 'invalid', key: null, message: 'the GPU device was lost' };
        done = Math.min(betas, done + max);
        return { done: done >= betas, doneSteps: done, totalSteps: betas };
      },
      logWeights: (i) => Float64Array.from(logWeightsOf(reqs[i].seed, reqs[i].w0, particles)),
      loseGpuForTest: () => {
        this.lose = true;
      },
      free: () => {
        this.freed += 1;
      },
    };
  }
}

/** A clock and a scheduler whose time moves only when a task waits for it. */
class FakeTime {
  t = 0;
  tasks: { at: number; fn: () => void }[] = [];
  schedule = (fn: () => void, ms: number) => this.tasks.push({ at: this.t + ms, fn });
  /** Runs tasks in time order until none is left or `until` is reached. */
  run(until = Infinity): void {
    for (let i = 0; i < 100_000 && this.tasks.length; i++) {
      this.tasks.sort((a, b) => a.at - b.at);
      if (this.tasks[0].at > until) break;
      const task = this.tasks.shift()!;
      this.t = Math.max(this.t, task.at) + 1; // each slice takes a millisecond
      task.fn();
    }
    if (until !== Infinity) this.t = Math.max(this.t, until);
  }
}

describe('AisBatcher', () => {
  let core: FakeCore;
  let time: FakeTime;
  let posted: FromWorker[];
  let batcher: AisBatcher;
  beforeEach(() => {
    core = new FakeCore();
    time = new FakeTime();
    posted = [];
    batcher = new AisBatcher(core, { post: (m) => posted.push(m), now: () => time.t, schedule: time.schedule });
  });
  const results = () => new Map(posted.flatMap((m) => (m.type === 'aisResult' ? [[m.key, m.logWeights ? [...m.logWeights] : m.error] as const] : [])));

  it('gathers the requests of one shape that arrive together into one batch, at most what the GPU holds, oldest first', () => {
    for (let k = 1; k <= 5; k++) batcher.add(k, request(k));
    batcher.add(6, request(6, 6, 5)); // another shape: its own batch
    time.run();
    expect(core.made.map((b) => b.models)).toEqual([[1, 2, 3], [4, 5], [6]]);
    expect(batcher.batches).toEqual([3, 2, 1]);
    for (let k = 1; k <= 6; k++) expect(results().get(k)).toEqual(logWeightsOf(k, k, 5));
    // Every batch was freed; the last status says none is under way.
    expect(core.freed).toBe(3);
    const last = posted.filter((m) => m.type === 'aisStatus').at(-1);
    expect(last).toMatchObject({ status: { models: 0, batches: [3, 2, 1], waiting: 0, failed: null } });
  });

  it('waits GATHER_MS for company, and starts at once when a batch is full', () => {
    core.roomFor = 2;
    batcher.add(1, request(1));
    time.run(GATHER_MS / 2);
    expect(core.made).toEqual([]);
    batcher.add(2, request(2)); // fills the batch: it starts without waiting the rest
    time.run(GATHER_MS / 2 + 5);
    expect(core.made.map((b) => b.models)).toEqual([[1, 2]]);
    batcher.add(3, request(3));
    time.run(time.t + GATHER_MS - 10);
    expect(core.made.length).toBe(1);
    time.run();
    expect(core.made.map((b) => b.models)).toEqual([[1, 2], [3]]);
  });

  it("gives each request its own model's answer whatever the batches were (arrival times change the batches, not the numbers)", () => {
    const answers: Map<number, unknown>[] = [];
    const batches: number[][] = [];
    for (const gap of [0, GATHER_MS / 3, 2 * GATHER_MS]) {
      core = new FakeCore();
      time = new FakeTime();
      posted = [];
      batcher = new AisBatcher(core, { post: (m) => posted.push(m), now: () => time.t, schedule: time.schedule });
      for (let k = 1; k <= 6; k++) {
        batcher.add(k, request(10 + k));
        time.run(time.t + gap);
      }
      time.run();
      answers.push(results());
      batches.push([...batcher.batches]);
    }
    expect(new Set(batches.map((b) => b.join())).size).toBeGreaterThan(1);
    for (const a of answers) expect(a).toEqual(answers[0]);
    for (let k = 1; k <= 6; k++) expect(answers[0].get(k)).toEqual(logWeightsOf(10 + k, 10 + k, 5));
  });

  it('drops a cancelled request: waiting, it never runs; in a batch, its answer is dropped, and the batch once no member wants it', () => {
    batcher.add(1, request(1));
    batcher.add(2, request(2));
    batcher.cancel(2);
    time.run(GATHER_MS + 2); // the batch starts
    expect(core.made.map((b) => b.models)).toEqual([[1]]);
    batcher.cancel(1);
    expect(core.freed).toBe(1);
    time.run();
    expect(results().size).toBe(0);
    expect(batcher.batches).toEqual([]);
  });

  it('answers a failed batch, the waiting requests and every later one with the reason', () => {
    core.roomFor = 2;
    for (let k = 1; k <= 3; k++) batcher.add(k, request(k));
    time.run(0); // the first batch (full) starts and takes its first steps
    expect(core.made.map((b) => b.models)).toEqual([[1, 2]]);
    batcher.loseGpuForTest();
    time.run();
    const why = "the study's AIS worker failed (the GPU device was lost)";
    expect([...results().entries()]).toEqual([
      [1, why],
      [2, why],
      [3, why],
    ]);
    batcher.add(4, request(4));
    expect(results().get(4)).toBe(why);
    expect(batcher.status().failed).toBe(why);
  });

  it("takes the test hook's lost GPU for the next batch when none is under way", () => {
    batcher.loseGpuForTest();
    batcher.add(1, request(1));
    time.run();
    expect(core.made.map((b) => b.models)).toEqual([[1]]);
    expect(results().get(1)).toBe("the study's AIS worker failed (the GPU device was lost)");
  });

  it('fails a request the core refuses alone; pause holds the batch', () => {
    const bad = { ...request(2), w: new Float32Array(3) };
    batcher.add(1, request(1));
    batcher.add(2, bad);
    batcher.pause(true);
    time.run();
    expect(results().size).toBe(0);
    batcher.pause(false);
    time.run();
    expect(results().get(2)).toBe('parameter sizes w=3 do not fit');
    expect(results().get(1)).toEqual(logWeightsOf(1, 1, 5));
    expect(core.made.map((b) => b.models)).toEqual([[1]]);
  });

  it('tells requests of different size, particles or β apart', () => {
    expect(shapeOf(request(1))).toBe(shapeOf(request(2)));
    expect(new Set([request(1), request(1, 7), request(1, 6, 5), request(1, 6, 4, 6), request(1, 6, 4, 5, 41)].map(shapeOf)).size).toBe(5);
  });
});

describe('StudyAis (the page relays, never computes)', () => {
  it('relays requests and answers, cancels an ended trial, answers every waiting trial when the AIS worker dies', () => {
    const workers: FakeWorker[] = [];
    let changes = 0;
    const ais = new StudyAis(
      (name) => {
        const w = new FakeWorker(name);
        workers.push(w);
        return w;
      },
      () => {
        changes += 1;
      },
    );
    const got: [string, unknown][] = [];
    ais.ask(7, request(1), (lw, e) => got.push(['a', lw ? [...lw] : e]));
    ais.ask(8, request(2), (lw, e) => got.push(['b', lw ? [...lw] : e]));
    ais.ask(9, request(3), (lw, e) => got.push(['c', lw ? [...lw] : e]));
    expect(workers.length).toBe(1);
    const sent = workers[0].posted.filter((m) => m.type === 'aisRequest');
    expect(sent.map((m) => m.request.seed)).toEqual([1, 2, 3]);
    workers[0].reply({ type: 'aisResult', key: sent[0].key, logWeights: Float64Array.from([1, 2]), error: null });
    expect(got).toEqual([['a', [1, 2]]]);
    ais.cancel(8);
    expect(workers[0].last('aisCancel')).toEqual({ type: 'aisCancel', key: sent[1].key });
    workers[0].reply({ type: 'aisStatus', status: { models: 1, done: 5, total: 40, batches: [1], waiting: 0, failed: null } });
    expect(changes).toBe(1);
    expect(studyAisText(ais.status, ais.lost)).toBe(
      "AIS in batches (the study's AIS worker): annealing 1 model at once on the GPU, β step 5 of 40; 1 batch of 1 checkpoint model so far.",
    );
    workers[0].onerror?.({ message: 'out of memory', preventDefault: () => undefined } as ErrorEvent);
    expect(got).toEqual([
      ['a', [1, 2]],
      ['c', "the study's AIS worker stopped (out of memory)"],
    ]);
    expect(workers[0].terminated).toBe(true);
    ais.ask(10, request(4), (lw, e) => got.push(['d', lw ? [...lw] : e]));
    expect(got.at(-1)).toEqual(['d', "the study's AIS worker stopped (out of memory)"]);
    expect(studyAisText(ais.status, ais.lost)).toContain('each trial anneals its checkpoints on its own GPU');
    ais.dispose();
  });

  it('ends the AIS worker on dispose (Stop), and forwards pause', () => {
    const w = new FakeWorker('ais');
    const ais = new StudyAis(
      () => w,
      () => undefined,
    );
    ais.ask(1, request(1), () => undefined);
    ais.pause(true);
    expect(w.last('aisPause')).toEqual({ type: 'aisPause', paused: true });
    ais.dispose();
    expect(w.terminated).toBe(true);
  });
});

/** A fake GPU lane with a study AIS: a record every `every` updates, arriving one step later. */
class FakeStudyLane implements TrialLane {
  iter = 0;
  readonly gpu = 'Fake GPU';
  private held: CoreRecord[] = [];
  private recorded = 0;
  /** Study AIS runs made, and the steps each took here. */
  readonly runs: { iter: number; seed: number; stepped: number; accepted: boolean }[] = [];
  constructor(private readonly every: number) {
    this.held = [this.rec(0)];
  }
  rec(iter: number): CoreRecord {
    return { iter, sweeps: iter, vh_steps: iter, atll: null, log_z: null, stats: {} } as unknown as CoreRecord;
  }
  get busy(): boolean {
    return this.held.length > 0;
  }
  step(n: number): Slice {
    const out = this.held;
    for (const r of out) this.recorded = r.iter;
    this.held = [];
    for (let i = 0; i < n; i++) {
      this.iter += 1;
      if (this.iter % this.every === 0) this.held.push(this.rec(this.iter));
    }
    return { records: out, iter: this.iter, error: null, failed: false, view: null };
  }
  record(): CoreRecord {
    throw new Error('a GPU lane has no record on demand');
  }
  ais(): never {
    throw new Error('a GPU study lane anneals by studyAis');
  }
  exactMeasure(): never {
    throw new Error('not measured exactly');
  }
  /** A study AIS whose ATLL is a function of its log-weights (the sum), which are the model's
   * (its update and seed) whether stepped here (3 steps) or accepted from the AIS worker. */
  studyAis(_dataset: string, particles: number, _betas: number, seed: number): StudyAisRun {
    const iter = this.recorded;
    const run = { iter, seed, stepped: 0, accepted: false };
    this.runs.push(run);
    let lw: Float64Array | null = null;
    const own = () => Float64Array.from({ length: particles }, (_, i) => iter + seed / 1000 + i);
    return {
      m: 2,
      n: 1,
      weights: () => Float32Array.from([iter, seed]),
      visibleBiases: () => new Float32Array(2),
      hiddenBiases: () => new Float32Array(1),
      baseBiases: () => new Float32Array(2),
      accept: (x) => {
        lw = x;
        run.accepted = true;
      },
      step: () => {
        if (!lw) {
          run.stepped += 1;
          if (run.stepped >= 3) lw = own();
        }
        return { done: lw !== null, doneSteps: run.stepped, totalSteps: 3 };
      },
      result: () => ({ atll: -[...(lw as Float64Array)].reduce((a, b) => a + b, 0), iter }) as unknown as AisEstimate,
      free: () => undefined,
    };
  }
  free(): void {}
}

describe('TrialRunner with the study AIS worker', () => {
  let posted: FromWorker[];
  let queue: (() => void)[];
  let lanes: FakeStudyLane[];
  let runner: TrialRunner;
  const run = () => {
    for (let i = 0; i < 1000 && queue.length; i++) queue.shift()?.();
  };
  beforeEach(() => {
    posted = [];
    queue = [];
    lanes = [];
    let t = 0;
    const core: TrialCore = {
      lastPanic: () => undefined,
      hasData: () => true,
      loadData: () => Promise.resolve([]),
      trialSeed: (seed, trial) => seed * 1000 + trial,
      aisSeed: (seed, k) => seed * 10 + k,
      newTrialLane: () => {
        const l = new FakeStudyLane(10);
        lanes.push(l);
        return l;
      },
    };
    runner = new TrialRunner(core, { post: (m) => posted.push(m), now: () => (t += 5), schedule: (fn) => queue.push(fn) });
  });
  const measure = { dataset: 'mnist-test', particles: 4, betas: 1000 };
  const trial = (id: number, aisBatch: boolean): ToWorker => ({
    type: 'trial',
    id,
    config: { algo: 'sdcp', lane: 0, every: 10 },
    dataset: 'mnist',
    seed: 3,
    trial: 1,
    until: 20,
    compute: 'gpu',
    measure,
    ...(aisBatch ? { aisBatch } : {}),
  });
  const points = () => posted.flatMap((m) => (m.type === 'trialPoints' ? m.points.map((p) => [p.iter, p.atll]) : []));

  it("sends each checkpoint's model to the AIS worker, waits without slices, and takes its answer: the trial's own numbers", () => {
    // The trial's own AIS: every checkpoint stepped here.
    runner.handle(trial(1, false));
    run();
    const own = points();
    expect(own.map((p) => p[0])).toEqual([0, 10, 20]);
    expect(lanes[0].runs.every((r) => r.stepped === 3 && !r.accepted)).toBe(true);
    expect(posted.some((m) => m.type === 'aisAsk')).toBe(false);
    // Batched: each checkpoint asks, and the trial does nothing until the answer.
    posted = [];
    runner.handle(trial(2, true));
    for (let k = 0; k < 3; k++) {
      run();
      expect(queue.length).toBe(0);
      const ask = posted.filter((m) => m.type === 'aisAsk').at(-1);
      expect(ask).toMatchObject({ type: 'aisAsk', id: 2, k, request: { m: 2, n: 1, particles: 4, betas: 1000, seed: 3001 * 10 + k } });
      if (ask?.type !== 'aisAsk') throw new Error('no ask');
      const [iter, seed] = ask.request.w;
      // The AIS worker's answer: the model's log-weights (as a batch of it alone gives them).
      runner.handle({ type: 'aisAnswer', id: 2, k, logWeights: Float64Array.from({ length: 4 }, (_, i) => iter + seed / 1000 + i), error: null });
    }
    run();
    expect(points()).toEqual(own);
    expect(lanes[1].runs.every((r) => r.accepted && r.stepped === 0)).toBe(true);
    expect(posted.at(-1)).toMatchObject({ type: 'trialDone', id: 2, error: null });
  });

  it('anneals a checkpoint itself when the AIS worker answers without log-weights, and asks no more; ignores a stale answer', () => {
    runner.handle(trial(1, false));
    run();
    const own = points();
    posted = [];
    runner.handle(trial(2, true));
    run();
    // A stale answer (another trial, another checkpoint) changes nothing.
    runner.handle({ type: 'aisAnswer', id: 1, k: 0, logWeights: Float64Array.from([9, 9, 9, 9]), error: null });
    runner.handle({ type: 'aisAnswer', id: 2, k: 1, logWeights: Float64Array.from([9, 9, 9, 9]), error: null });
    expect(queue.length).toBe(0);
    runner.handle({ type: 'aisAnswer', id: 2, k: 0, logWeights: null, error: "the study's AIS worker stopped (gone)" });
    run();
    expect(points()).toEqual(own);
    expect(posted.filter((m) => m.type === 'aisAsk').length).toBe(1);
    expect(lanes[1].runs.every((r) => r.stepped === 3)).toBe(true);
  });
});
