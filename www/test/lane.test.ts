import { beforeEach, describe, expect, it } from 'vitest';
import { fatalNote, LaneHandle } from '../src/app/lane';
import type { FromWorker } from '../src/protocol/messages';
import { FakeWorker } from './fakeWorker';

let workers: FakeWorker[];
let changes: number;
let models: string[];
let lane: LaneHandle;
const w = () => workers[workers.length - 1];

const configured = (gen: number): FromWorker => ({ type: 'configured', gen, seed: '1', every: 10 });
const progress = (gen: number, iter: number, atll: number): FromWorker => ({
  type: 'progress',
  gen,
  points: [{ iter, sweeps: iter, atll }],
  iter,
  rate: 100,
  elapsed: 10 * iter,
  stats: { mean_tau: 2 },
  view: null,
});
const status = (gen: number, s: 'ready' | 'running' | 'fatal', message: string | null = null): FromWorker => ({ type: 'status', gen, status: s, message });

beforeEach(() => {
  workers = [];
  changes = 0;
  models = [];
  lane = new LaneHandle(
    { id: 2, algo: 'cd', label: null, options: { lr: 0.1, k: 1 } },
    (name) => {
      const fw = new FakeWorker(name);
      workers.push(fw);
      return fw;
    },
    { changed: () => changes++, model: (_, json) => models.push(json) },
  );
});

describe('LaneHandle', () => {
  it("keeps the core's notice of the lane shown and forgets it with a lane that has none", () => {
    lane.configure({ algo: 'cd', hidden: 100000 }, 'bas4');
    w().reply({ type: 'configured', gen: 1, seed: '1', every: 10, notice: 'No exact curve for this lane: …' });
    expect(lane.notice).toBe('No exact curve for this lane: …');
    lane.configure({ algo: 'cd', hidden: 16 }, 'bas4');
    w().reply(configured(2));
    expect(lane.notice).toBeNull();
  });

  it('sends each configuration with a new generation and takes the reply to the latest one', () => {
    expect(w().name).toBe('lane 2 (cd)');
    expect(lane.configure({ algo: 'cd', lr: 0.1 }, 'bas4')).toBe(1);
    expect(w().posted).toEqual([{ type: 'configure', gen: 1, config: { algo: 'cd', lr: 0.1 }, dataset: 'bas4' }]);
    w().reply(configured(1));
    w().reply(progress(1, 0, -11));
    w().reply(status(1, 'ready'));
    expect([lane.gen, lane.status, lane.curve.atll, lane.seed]).toEqual([1, 'ready', [-11], '1']);
    expect(changes).toBe(3);
  });

  it('drops a stale configured reply (an older generation) and the progress of that lane', () => {
    lane.configure({ lr: 0.1 }, 'bas4'); // gen 1
    lane.configure({ lr: 0.2 }, 'bas4'); // gen 2, sent before the worker answered gen 1
    w().reply(configured(1));
    w().reply(progress(1, 0, -11));
    w().reply(status(1, 'ready'));
    expect([lane.gen, lane.curve.atll, lane.status]).toEqual([0, [], 'loading']);
    w().reply(configured(2));
    w().reply(progress(2, 0, -12));
    // A late message of generation 1 after generation 2 took over: dropped too.
    w().reply(progress(1, 10, -5));
    w().reply(status(1, 'running'));
    expect([lane.gen, lane.curve.atll, lane.status]).toEqual([2, [-12], 'loading']);
  });

  it('drops a stale rejected reply, and shows the current refusal', () => {
    lane.configure({ lr: -1 }, 'bas4'); // gen 1: refused
    lane.configure({ lr: 0.2 }, 'bas4'); // gen 2
    w().reply({ type: 'rejected', gen: 1, error: { kind: 'invalid_option', key: 'lr', message: 'bad lr' }, kept: 0 });
    expect(lane.rejection).toBeNull();
    w().reply(configured(2));
    expect(lane.rejection).toBeNull();
    lane.configure({ lr: 0.2, batch: 99 }, 'bas4'); // gen 3
    w().reply({ type: 'rejected', gen: 3, error: { kind: 'invalid_option', key: 'batch', message: 'batch too big' }, kept: 2 });
    expect(lane.rejection).toEqual({ kind: 'invalid_option', key: 'batch', message: 'batch too big' });
    // The kept lane (generation 2) goes on being shown.
    w().reply(progress(2, 10, -9));
    expect(lane.curve.iter).toEqual([10]);
    expect(w().posted.filter((m) => m.type === 'reset')).toEqual([]);
  });

  it('when the kept lane is not the one shown (its reply was dropped), starts it again under a new generation', () => {
    lane.configure({ lr: 0.1 }, 'bas4'); // gen 1: built, but …
    lane.configure({ lr: -1 }, 'bas4'); // gen 2: refused
    w().reply(configured(1)); // … stale when it arrives
    w().reply({ type: 'rejected', gen: 2, error: { kind: 'invalid_option', key: 'lr', message: 'bad lr' }, kept: 1 });
    expect(w().posted.at(-1)).toEqual({ type: 'reset', gen: 3 });
    w().reply(configured(3));
    w().reply(progress(3, 0, -11));
    expect([lane.gen, lane.curve.atll]).toEqual([3, [-11]]);
    // The refusal stays shown until a configuration is accepted.
    expect(lane.rejection?.key).toBe('lr');
  });

  it('a configured reply starts a new curve', () => {
    lane.configure({ lr: 0.1 }, 'bas4');
    w().reply(configured(1));
    w().reply(progress(1, 0, -11));
    w().reply(progress(1, 10, -10));
    expect(lane.iter).toBe(10);
    expect(lane.stats).toEqual({ mean_tau: 2 });
    lane.configure({ lr: 0.3 }, 'bas4');
    w().reply(configured(2));
    expect([lane.iter, lane.curve.iter, lane.stats, lane.view]).toEqual([0, [], {}, null]);
  });

  it("takes the worker's status, a fatal one whatever its generation, and restarts with a fresh worker and the same configuration", () => {
    lane.limit(500);
    lane.configure({ lr: 0.1 }, 'bas4');
    w().reply(configured(1));
    w().reply(status(1, 'running'));
    expect(lane.status).toBe('running');
    w().reply(status(0, 'fatal', 'internal error: boom (please report this)'));
    expect([lane.status, lane.message]).toEqual(['fatal', 'internal error: boom (please report this)']);
    const old = w();
    lane.restart();
    expect(old.terminated).toBe(true);
    expect(old.onmessage).toBeNull();
    expect(workers).toHaveLength(2);
    expect([lane.status, lane.message, lane.curve.iter]).toEqual(['loading', null, []]);
    expect(w().posted).toEqual([
      { type: 'limit', until: 500 },
      { type: 'configure', gen: 2, config: { lr: 0.1 }, dataset: 'bas4' },
    ]);
    w().reply(configured(2));
    w().reply(status(2, 'ready'));
    expect(lane.status).toBe('ready');
  });

  it('keeps the curve of a lane whose worker died, and says what it kept and what it lost; Restart clears it', () => {
    lane.configure({ lr: 0.1 }, 'bas4');
    w().reply(configured(1));
    w().reply(status(1, 'running'));
    w().reply(progress(1, 100, -9));
    w().reply(progress(1, 200, -8));
    expect(fatalNote(lane)).toBeNull();
    // The health check's error event (workerHealth.ts): the worker went silent.
    w().onerror?.({ message: 'it stopped answering (no reply in 10 s): it was ended or is stuck' } as ErrorEvent);
    expect(lane.status).toBe('fatal');
    expect(lane.curve).toEqual({ iter: [100, 200], sweeps: [100, 200], atll: [-9, -8] });
    expect(fatalNote(lane)).toBe(
      'Kept: its curve, 2 points to update 200 (the chart, its PNG and Download curve (CSV)). Lost: its model at update 200, which lived in the worker (no model download); Restart lane builds it again from update 0 and clears the curve.',
    );
    lane.restart();
    expect(lane.curve.iter).toEqual([]);
  });

  it("takes the update a Pause's reply names as where the lane stopped", () => {
    lane.configure({ lr: 0.1 }, 'bas4');
    w().reply(configured(1));
    w().reply(status(1, 'running'));
    w().reply(progress(1, 300, -9));
    lane.pause();
    w().reply({ type: 'status', gen: 1, status: 'paused', message: null, at: Date.now(), iter: 300 });
    expect([lane.status, lane.pausedAt]).toEqual(['paused', 300]);
  });

  it('a worker that fails to run is fatal', () => {
    w().onerror?.({ message: 'SyntaxError: bad script', preventDefault: () => {} } as unknown as ErrorEvent);
    expect([lane.status, lane.message]).toEqual(['fatal', "the lane's worker failed: SyntaxError: bad script"]);
  });

  it('passes the commands on, and hands model files to its owner', () => {
    lane.start();
    lane.pause();
    lane.reset();
    lane.exportModel();
    lane.crash();
    expect(w().posted.map((m) => m.type)).toEqual(['start', 'pause', 'reset', 'export', 'crash']);
    w().reply({ type: 'model', gen: 0, iter: 0, json: '{}' });
    expect(models).toEqual(['{}']);
    lane.dispose();
    expect(w().terminated).toBe(true);
  });
});

describe('LaneHandle: data on its way', () => {
  const source = {
    key: 'asset:mnist',
    kind: 'asset' as const,
    name: 'mnist',
    label: 'the MNIST digits',
    files: [{ url: 'https://x/m.gz', what: 'the MNIST digits' }],
  };

  it('sends where to load the data from, shows the bytes received for its latest configuration only, and forgets them once answered', () => {
    lane.configure({ algo: 'cd' }, 'bas4');
    w().reply(configured(1));
    expect(lane.configure({ algo: 'cd' }, 'mnist', source)).toBe(2);
    expect(w().posted.at(-1)).toEqual({ type: 'configure', gen: 2, config: { algo: 'cd' }, dataset: 'mnist', source });
    w().reply({ type: 'loading', gen: 1, label: 'x', received: 5, total: null }); // stale
    expect(lane.dataLoad).toBeNull();
    w().reply({ type: 'status', gen: 1, status: 'loading', message: null });
    w().reply({ type: 'loading', gen: 2, label: 'the MNIST digits', received: 800_000, total: 1_600_000 });
    expect([lane.status, lane.dataLoad]).toEqual(['loading', { label: 'the MNIST digits', received: 800_000, total: 1_600_000 }]);
    w().reply(configured(2));
    expect(lane.dataLoad).toBeNull();
  });

  it('keeps the time spent training, and a restarted worker loads the data again', () => {
    lane.configure({ algo: 'cd' }, 'mnist', source);
    w().reply(configured(1));
    w().reply(progress(1, 30, -5));
    expect(lane.elapsed).toBe(300);
    w().reply(status(1, 'fatal', 'boom'));
    lane.restart();
    expect(w().posted).toEqual([{ type: 'configure', gen: 2, config: { algo: 'cd' }, dataset: 'mnist', source }]);
    expect(lane.elapsed).toBe(0);
  });
});

describe('LaneHandle: log-likelihood estimates', () => {
  const settings = { particles: 100, betas: 1000, seed: 1 };
  const report = (state: 'running' | 'done', done: number) => ({
    state,
    phase: 'ais' as const,
    done,
    total: 10,
    iter: 5,
    dataset: 'mnist-test',
    settings,
    exact: null,
    ais: null,
    raise: null,
    ms: 1,
    error: null,
  });

  it('asks for the test split when training on mnist, takes only the latest estimate of the lane shown, and cancels', () => {
    expect(lane.estimateLikelihood(settings)).toBe(false); // no lane yet
    lane.configure({ lr: 0.1 }, 'mnist');
    w().reply(configured(1));
    w().reply(status(1, 'ready'));
    expect(lane.estimateLikelihood(settings)).toBe(true);
    expect(w().posted.at(-1)).toEqual({ type: 'estimate', gen: 1, id: 1, dataset: 'mnist-test', settings });
    expect(lane.estimate?.state).toBe('running');
    lane.estimateLikelihood(settings); // id 2 replaces id 1
    w().reply({ type: 'estimate', gen: 1, id: 1, report: report('running', 3) });
    expect(lane.estimate?.done).toBe(0);
    w().reply({ type: 'estimate', gen: 0, id: 2, report: report('running', 3) });
    expect(lane.estimate?.done).toBe(0);
    w().reply({ type: 'estimate', gen: 1, id: 2, report: report('running', 4) });
    expect(lane.estimate?.done).toBe(4);
    lane.cancelEstimate();
    expect(w().posted.at(-1)).toEqual({ type: 'cancelEstimate', id: 2 });
    expect(lane.estimate?.state).toBe('cancelled');
    w().reply({ type: 'estimate', gen: 1, id: 2, report: report('running', 6) }); // in flight
    expect(lane.estimate?.state).toBe('cancelled');
    // A new lane (configured) clears it.
    lane.configure({ lr: 0.2 }, 'bas4');
    w().reply(configured(2));
    expect(lane.estimate).toBeNull();
    w().reply(status(2, 'ready'));
    lane.estimateLikelihood(settings);
    expect(w().posted.at(-1)).toMatchObject({ type: 'estimate', gen: 2, dataset: 'bas4' });
  });
});

describe('LaneHandle: AIS every N updates (issue 27)', () => {
  const settings = { particles: 100, betas: 1000, seed: 1 };
  const side = (method: 'ais' | 'raise', atll: number) => ({
    log_z: 0,
    log_z_lo: 0,
    log_z_hi: 0,
    atll,
    atll_lo: atll - 1,
    atll_hi: atll + 1,
    method,
    particles: 100,
    betas: 1000,
    seed: 1,
    rows: 10,
    base_log_z: 0,
    thresholded: true,
    ess: null,
    iter: 0,
    dataset: 'mnist-test',
    gpu: null,
  });
  const report = (iter: number, state: 'running' | 'done' | 'cancelled') => ({
    state,
    phase: 'raise' as const,
    done: 1,
    total: 2,
    iter,
    dataset: 'mnist-test',
    settings,
    exact: null,
    ais: state === 'done' ? side('ais', -100 + iter) : null,
    raise: state === 'done' ? side('raise', -101 + iter) : null,
    ms: 1,
    error: null,
  });

  it('asks its worker for the schedule with every configuration and keeps the brackets in update order', () => {
    lane.setAisEvery(40);
    expect(w().posted.some((m) => m.type === 'autoEstimate')).toBe(false); // nothing configured yet
    lane.configure({ lr: 0.1 }, 'mnist');
    expect(w().posted.at(-1)).toEqual({ type: 'autoEstimate', every: 40, dataset: 'mnist-test', settings });
    w().reply(configured(1));
    w().reply({ type: 'estimate', gen: 1, id: 1, report: report(0, 'running'), scheduled: { sweeps: 0 } });
    expect(lane.scheduled?.state).toBe('running');
    expect(lane.brackets).toEqual([]);
    w().reply({ type: 'estimate', gen: 1, id: 2, report: report(40, 'done'), scheduled: { sweeps: 960 } });
    w().reply({ type: 'estimate', gen: 1, id: 1, report: report(0, 'done'), scheduled: { sweeps: 0 } });
    w().reply({ type: 'estimate', gen: 0, id: 3, report: report(80, 'done'), scheduled: { sweeps: 1920 } }); // stale lane
    expect(lane.brackets.map((b) => [b.iter, b.sweeps, b.ais.atll, b.raise.atll])).toEqual([
      [0, 0, -100, -101],
      [40, 960, -60, -61],
    ]);
    expect(lane.scheduled).toBeNull();
    expect(lane.estimate).toBeNull(); // the user's estimate is another thing
    lane.setAisEvery(null);
    expect(w().posted.at(-1)).toEqual({ type: 'autoEstimate', every: null, dataset: 'mnist-test', settings });
    expect(lane.brackets).toHaveLength(2);
    // A new lane starts a new series.
    lane.configure({ lr: 0.2 }, 'mnist');
    w().reply(configured(2));
    expect(lane.brackets).toEqual([]);
  });
});

describe('LaneHandle: statistics over training (issue 27)', () => {
  it('keeps the records’ statistics the worker sends, and a new lane starts them again', () => {
    lane.configure({ lr: 0.1 }, 'bas4');
    w().reply(configured(1));
    w().reply({
      type: 'progress',
      gen: 1,
      points: [],
      iter: 20,
      rate: 1,
      elapsed: 1,
      stats: null,
      view: null,
      statPoints: [
        { iter: 10, sweeps: 10, stats: { mean_tau: 2 } },
        { iter: 20, sweeps: 20, stats: { mean_tau: 3 } },
      ],
    });
    expect(lane.statCurve.iter).toEqual([10, 20]);
    expect(lane.statCurve.stats.map((s) => s.mean_tau)).toEqual([2, 3]);
    lane.configure({ lr: 0.2 }, 'bas4');
    w().reply(configured(2));
    expect(lane.statCurve.iter).toEqual([]);
  });
});
