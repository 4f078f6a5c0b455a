// A study's trials as one GPU job (issue 30): the page's side (studyJob.ts, and StudyRun
// offering its lanes to the job, giving back what it does not take or cannot finish) with fake
// workers, and the job worker's side (studyJobRunner.ts) with a fake core.
import { describe, expect, it } from 'vitest';
import { StudyRun } from '../src/app/studyRun';
import type { CoreRecord } from '../src/generated/core';
import type { FromWorker, ToWorker } from '../src/protocol/messages';
import { studyJobText } from '../src/workers/studyJob';
import { type CoreStudyJob, JOB_WAIT_MS, type JobSliceResult, type StudyJobCore, StudyJobRunner } from '../src/workers/studyJobRunner';
import { FakeWorker } from './fakeWorker';

const lane = (id: number, label: string) => ({ id, label, claimLabel: null, stats: [] });

/** A study of two lanes × `runs` trials to update 20, recorded every 10, offered to a GPU job. */
function makeRun(runs = 3) {
  const workers: FakeWorker[] = [];
  const redraws = { count: 0 };
  const factory = (name: string) => {
    const w = new FakeWorker(name);
    workers.push(w);
    return w;
  };
  const plan = { lanes: [lane(0, 'CD-1'), lane(1, 'UCD')], runs, until: 20, every: 10, seed: 7 };
  const configs = [{ algo: 'cd' }, { algo: 'ucd' }];
  const run = new StudyRun(
    plan,
    (t) => ({ config: configs[t.lane], dataset: 'bas3', source: null, seed: 7, until: 20, compute: 'gpu' }),
    factory,
    2,
    () => {
      redraws.count += 1;
    },
    () => 0,
    false,
    { dataset: 'bas3', source: null, seed: 7, until: 20, every: 10, configs },
  );
  const job = () => workers.find((w) => w.name === 'study GPU job') as FakeWorker;
  const trialsPosted = () => workers.filter((w) => w.name !== 'study GPU job').flatMap((w) => w.posted.filter((m) => m.type === 'trial'));
  return { run, workers, job, trialsPosted, redraws };
}

const rec = (iter: number, atll: number) => ({ iter, sweeps: iter, atll, stats: {}, ms: 1 });

describe('a study offering its lanes to one GPU job', () => {
  it('sends every trial to the job, gives back the lanes it leaves, and takes its records', () => {
    const { run, job, trialsPosted } = makeRun();
    run.start();
    const asked = job().last('studyJob');
    expect(asked?.lanes.map((l) => [l.lane, l.trials])).toEqual([
      [0, [0, 1, 2]],
      [1, [0, 1, 2]],
    ]);
    expect(asked?.until).toBe(20);
    expect(asked?.every).toBe(10);
    // The trial workers wait for the job's answer.
    expect(trialsPosted()).toHaveLength(0);
    job().reply({ type: 'studyJobStarted', id: 1, gpu: 'SwiftShader', lanes: [0], trials: 3, refused: [{ lane: 1, why: 'UCD runs on the CPU engine only' }] });
    // UCD's trials go to the trial workers as before (each asks for its own GPU lane).
    const posted = trialsPosted() as Extract<ToWorker, { type: 'trial' }>[];
    expect(posted.length).toBeGreaterThan(0);
    expect(posted.every((m) => m.config.algo === 'ucd' && m.compute === 'gpu')).toBe(true);
    expect(run.jobText()).toBe(
      '3 trials of 1 lane train together as one GPU job on SwiftShader, update 0 of 20. Trial by trial instead: UCD (UCD runs on the CPU engine only).',
    );
    for (let i = 0; i < 3; i++) job().reply({ type: 'studyJobPoints', id: 1, trials: [{ lane: 0, trial: i, points: [rec(0, -5), rec(10, -4)] }], updates: 10 });
    expect(run.study.bands(0)[1]?.median).toBe(-4);
    expect(run.jobText()).toContain('update 10 of 20');
    expect(run.study.trials[0].every((t) => t.gpu === 'SwiftShader' && t.state === 'running')).toBe(true);
    for (let i = 0; i < 3; i++) job().reply({ type: 'studyJobPoints', id: 1, trials: [{ lane: 0, trial: i, points: [rec(20, -3)] }], updates: 20 });
    job().reply({ type: 'studyJobDone', id: 1, ms: 30, error: null });
    expect(run.study.trials[0].every((t) => t.state === 'done' && !t.diverged && t.points.length === 3)).toBe(true);
    expect(job().terminated).toBe(true);
  });

  it('redraws when the job only moves on, and says it reached its end once done', () => {
    const { run, job, redraws } = makeRun(1);
    run.start();
    job().reply({ type: 'studyJobStarted', id: 1, gpu: 'G', lanes: [0, 1], trials: 2, refused: [] });
    // Progress without new points (the updates run before their checkpoint's copy is back).
    const before = redraws.count;
    job().reply({ type: 'studyJobPoints', id: 1, trials: [], updates: 15 });
    expect(redraws.count).toBeGreaterThan(before);
    expect(run.jobText()).toContain('update 15 of 20');
    // Its last records came with an earlier count: the end still reads as the end.
    for (const lane of [0, 1])
      job().reply({ type: 'studyJobPoints', id: 1, trials: [{ lane, trial: 0, points: [rec(0, -5), rec(10, -4), rec(20, -3)] }], updates: 15 });
    job().reply({ type: 'studyJobDone', id: 1, ms: 9, error: null });
    expect(run.jobText()).toContain('update 20 of 20.');
  });

  it('gives its trials back to the CPU from update 0 when its GPU fails, saying why', () => {
    const { run, job, trialsPosted } = makeRun(2);
    run.start();
    job().reply({ type: 'studyJobStarted', id: 1, gpu: 'G', lanes: [0, 1], trials: 4, refused: [] });
    expect(trialsPosted()).toHaveLength(0);
    job().reply({ type: 'studyJobPoints', id: 1, trials: [{ lane: 0, trial: 0, points: [rec(0, -5)] }], updates: 0 });
    job().reply({ type: 'studyJobDone', id: 1, ms: 5, error: 'the GPU device was lost' });
    const posted = trialsPosted() as Extract<ToWorker, { type: 'trial' }>[];
    expect(posted).toHaveLength(2); // two trial workers, each with one trial
    expect(posted.every((m) => m.compute === undefined)).toBe(true);
    const t = run.study.trials[0][0];
    expect(t.points).toHaveLength(0);
    expect(t.gpu).toBeNull();
    expect(t.notice).toBe('The GPU job stopped (the GPU device was lost): its trials run again on the CPU from update 0.');
    expect(run.jobText()).toBe('GPU job: the GPU device was lost; its trials run again on the CPU, trial by trial.');
  });

  it('runs every trial on the CPU when the job never starts (no WebGPU, its worker gone)', () => {
    const { run, job, trialsPosted } = makeRun(1);
    run.start();
    job().onerror?.({ message: 'boom', preventDefault: () => undefined } as unknown as ErrorEvent);
    expect(trialsPosted()).toHaveLength(2);
    expect(run.study.trials.flat().every((t) => t.notice === 'On the CPU: the trials could not run as one GPU job (boom).')).toBe(true);
  });

  it('gives every lane back, on the GPU trial by trial, when the job takes none', () => {
    const { run, job, trialsPosted } = makeRun(1);
    run.start();
    job().reply({
      type: 'studyJobStarted',
      id: 1,
      gpu: 'G',
      lanes: [],
      trials: 0,
      refused: [
        { lane: 0, why: 'a' },
        { lane: 1, why: 'b' },
      ],
    });
    job().reply({ type: 'studyJobDone', id: 1, ms: 0, error: null });
    const posted = trialsPosted() as Extract<ToWorker, { type: 'trial' }>[];
    expect(posted).toHaveLength(2);
    expect(posted.every((m) => m.compute === 'gpu')).toBe(true);
    expect(run.study.trials.flat().every((t) => t.state === 'running' && !t.notice)).toBe(true);
    expect(run.jobText()).toBe('No lane runs as one GPU job; every trial trains on its own: CD-1 (a); UCD (b).');
  });

  it('pauses and resumes the job, and Stop ends its worker and requeues its trials', () => {
    const { run, job } = makeRun(1);
    run.start();
    run.pause();
    expect(job().last('studyJobPause')?.paused).toBe(true);
    run.start();
    expect(job().last('studyJobPause')?.paused).toBe(false);
    run.dispose();
    expect(job().terminated).toBe(true);
    expect(run.study.trials.flat().every((t) => t.state === 'queued')).toBe(true);
  });
});

describe('the job line', () => {
  it('says what happened in words', () => {
    expect(studyJobText(null, null)).toBeNull();
    expect(studyJobText({ gpu: 'A', lanes: 10, trials: 250, updates: 1500, until: 5000, refused: [] }, null)).toBe(
      '250 trials of 10 lanes train together as one GPU job on A, update 1,500 of 5,000.',
    );
  });
});

/** A fake core job: `checkpoints` at every 10 updates to `until`; a checkpoint's records come
 * a call after its updates (as the GPU's copies do). */
function fakeCore(until = 20, lose = false) {
  const made: { max: number[] } = { max: [] };
  const core: StudyJobCore = {
    prepare: async () => 'Fake GPU',
    lastPanic: () => null,
    newJob: (req) => {
      let updates = 0;
      let first = true;
      let waiting: number | null = null;
      let lost = lose;
      const record = (iter: number): CoreRecord => ({ iter, sweeps: iter, vh_steps: 0, atll: -iter, log_z: null, stats: {} }) as unknown as CoreRecord;
      const job: CoreStudyJob = {
        adapter: 'Fake GPU',
        lanes: req.lanes.map((l) => l.lane),
        trials: req.lanes.reduce((a, l) => a + l.trials.length, 0),
        refused: () => [],
        get busy() {
          return waiting !== null;
        },
        step: (max): JobSliceResult => {
          made.max.push(max);
          if (lost) return { trials: [], updates, done: false, error: { kind: 'invalid', key: null, message: 'lost' } as never };
          const out: JobSliceResult['trials'] = [];
          const all = (iter: number) => req.lanes.flatMap((l) => l.trials.map((trial) => ({ lane: l.lane, trial, records: [record(iter)] })));
          if (first) {
            out.push(...all(0));
            first = false;
          }
          if (waiting !== null) {
            out.push(...all(waiting));
            waiting = null;
          } else if (updates < until) {
            updates = Math.min(until, Math.floor(updates / 10) * 10 + 10, updates + max);
            if (updates % 10 === 0) waiting = updates;
          }
          return { trials: out, updates, done: waiting === null && updates >= until, error: null };
        },
        loseGpuForTest: () => {
          lost = true;
        },
        free: () => undefined,
      };
      return job;
    },
  };
  return { core, made };
}

describe('the job worker', () => {
  async function drive(lose = false) {
    const { core } = fakeCore(20, lose);
    const posted: FromWorker[] = [];
    const queue: (() => void)[] = [];
    let now = 0;
    const runner = new StudyJobRunner(core, {
      post: (m) => posted.push(m),
      now: () => (now += 5),
      schedule: (fn) => queue.push(fn),
      later: (fn) => queue.push(fn),
    });
    runner.handle({ type: 'studyJob', id: 3, dataset: 'bas3', seed: 1, until: 20, every: 10, lanes: [{ lane: 2, config: { algo: 'cd' }, trials: [0, 1] }] });
    await Promise.resolve();
    await Promise.resolve();
    for (let i = 0; i < 200 && queue.length; i++) (queue.shift() as () => void)();
    return { posted, runner, queue };
  }

  it('starts, streams each trial its records with its share of the time, and ends', async () => {
    const { posted } = await drive();
    expect(posted[0]).toEqual({ type: 'studyJobStarted', id: 3, gpu: 'Fake GPU', lanes: [2], trials: 2, refused: [] });
    const points = posted.filter((m) => m.type === 'studyJobPoints') as Extract<FromWorker, { type: 'studyJobPoints' }>[];
    const iters = (trial: number) => points.flatMap((p) => p.trials.filter((t) => t.trial === trial).flatMap((t) => t.points.map((x) => x.iter)));
    expect(iters(0)).toEqual([0, 10, 20]);
    expect(iters(1)).toEqual([0, 10, 20]);
    const last = points.at(-1)?.trials[0].points[0];
    expect(last?.atll).toBe(-20);
    expect(posted.at(-1)).toMatchObject({ type: 'studyJobDone', id: 3, error: null });
    // Each trial's time is its share of the job's.
    const done = posted.at(-1) as Extract<FromWorker, { type: 'studyJobDone' }>;
    expect(last?.ms).toBeLessThanOrEqual(done.ms / 2);
  });

  it("says why when the job's GPU fails", async () => {
    const { posted } = await drive(true);
    expect(posted.at(-1)).toEqual({ type: 'studyJobDone', id: 3, ms: expect.any(Number), error: 'lost' });
  });

  it('waits for a GPU that has not caught up on a timer, and sizes its slices by the time the GPU took', async () => {
    // A GPU that does an update in 0.1 ms: busy until the last slice's updates are done.
    let now = 0;
    let doneAt = 0;
    let updates = 0;
    const given: number[] = [];
    const job: CoreStudyJob = {
      adapter: 'Fake GPU',
      lanes: [0],
      trials: 1,
      refused: () => [],
      get busy() {
        return now < doneAt;
      },
      step: (max): JobSliceResult => {
        if (now >= doneAt && updates < 1_000_000) {
          given.push(max);
          updates += max;
          doneAt = now + max * 0.1;
        }
        return { trials: [], updates, done: false, error: null };
      },
      loseGpuForTest: () => undefined,
      free: () => undefined,
    };
    const core: StudyJobCore = { prepare: async () => 'Fake GPU', newJob: () => job, lastPanic: () => null };
    const soon: (() => void)[] = [];
    const timers: { fn: () => void; ms: number }[] = [];
    const runner = new StudyJobRunner(core, {
      post: () => undefined,
      now: () => now,
      schedule: (fn) => soon.push(fn),
      later: (fn, ms) => timers.push({ fn, ms }),
    });
    runner.handle({
      type: 'studyJob',
      id: 1,
      dataset: 'bas3',
      seed: 1,
      until: 1_000_000,
      every: 1_000_000,
      lanes: [{ lane: 0, config: { algo: 'cd' }, trials: [0] }],
    });
    await Promise.resolve();
    await Promise.resolve();
    let waits = 0;
    for (let i = 0; i < 5000; i++) {
      const fn = soon.shift();
      if (fn) {
        fn();
        continue;
      }
      const t = timers.shift();
      if (!t) break;
      expect(t.ms).toBe(JOB_WAIT_MS);
      waits += 1;
      now += t.ms;
      t.fn();
    }
    expect(waits).toBeGreaterThan(0);
    // Slices grow from 1 update to about JOB_SLICE_MS of the GPU's time (1 000 updates).
    expect(given[0]).toBe(1);
    expect(Math.max(...given)).toBeGreaterThanOrEqual(500);
    expect(Math.max(...given)).toBeLessThanOrEqual(2000);
  });

  it('holds the job while paused', async () => {
    const { core } = fakeCore();
    const posted: FromWorker[] = [];
    const queue: (() => void)[] = [];
    const runner = new StudyJobRunner(core, { post: (m) => posted.push(m), now: () => 0, schedule: (fn) => queue.push(fn), later: (fn) => queue.push(fn) });
    runner.handle({ type: 'studyJob', id: 1, dataset: 'bas3', seed: 1, until: 20, every: 10, lanes: [{ lane: 0, config: { algo: 'cd' }, trials: [0] }] });
    await Promise.resolve();
    await Promise.resolve();
    runner.handle({ type: 'studyJobPause', paused: true });
    while (queue.length) (queue.shift() as () => void)();
    expect(posted.filter((m) => m.type === 'studyJobPoints')).toHaveLength(0);
    runner.handle({ type: 'studyJobPause', paused: false });
    for (let i = 0; i < 100 && queue.length; i++) (queue.shift() as () => void)();
    expect(posted.at(-1)).toMatchObject({ type: 'studyJobDone', error: null });
  });

  it('fails the job with the reason where the GPU cannot be prepared', async () => {
    const posted: FromWorker[] = [];
    const core: StudyJobCore = {
      prepare: async () => {
        throw new Error('this browser offers no WebGPU');
      },
      newJob: () => {
        throw new Error('unreachable');
      },
      lastPanic: () => null,
    };
    const runner = new StudyJobRunner(core, { post: (m) => posted.push(m), now: () => 0, schedule: () => undefined, later: () => undefined });
    runner.handle({ type: 'studyJob', id: 4, dataset: 'bas3', seed: 1, until: 20, every: 10, lanes: [] });
    await new Promise((r) => setTimeout(r, 0));
    expect(posted).toEqual([{ type: 'studyJobDone', id: 4, ms: 0, error: 'this browser offers no WebGPU' }]);
  });
});
