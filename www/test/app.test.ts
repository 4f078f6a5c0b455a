import { beforeEach, describe, expect, it } from 'vitest';
import { App, type AppOptions } from '../src/app/app';
import { loadModelInto } from '../src/app/modelFile';
import { presetPlan } from '../src/app/presets';
import { firstScreen } from '../src/app/state';
import { decodeState, encodeState } from '../src/app/urlState';
import { busyWord } from '../src/views/laneCard';
import { FakeWorker } from './fakeWorker';
import { catalog } from './fixture';

let workers: FakeWorker[];
let changes: number;
let downloads: [string, string][];
let app: App;
let released: string[];

/** The worker of lane `id` (the latest one made for it). */
const worker = (id: number) => workers.filter((w) => w.name.startsWith(`lane ${id} `)).at(-1)!;

/** Plays a worker accepting lane `id`'s latest configuration, then reporting `status`. */
function accept(id: number, status: 'ready' | 'running' = 'ready'): void {
  const w = worker(id);
  const gen = w.posted.filter((m) => m.type === 'configure' || m.type === 'reset').length;
  w.reply({ type: 'configured', gen, seed: '1', every: 100 });
  w.reply({ type: 'status', gen, status, message: null });
}

/** A fresh controller on the first screen, its workers fakes collected in `workers`. */
function makeApp(options: Partial<AppOptions>): App {
  workers = [];
  const a = new App(
    catalog,
    (name) => {
      const w = new FakeWorker(name);
      workers.push(w);
      return w;
    },
    { changed: () => changes++, download: (name, text) => downloads.push([name, text]) },
    options,
  );
  a.load(firstScreen(catalog));
  return a;
}

beforeEach(() => {
  changes = 0;
  downloads = [];
  released = [];
  app = makeApp({ assetUrl: (asset) => `https://example.org/rbm/assets/generated/${asset}.bin.gz`, release: (url) => released.push(url) });
});

describe('App', () => {
  it('makes one worker per lane and sends it its end point and configuration', () => {
    expect(workers.map((w) => w.name)).toEqual(['lane 0 (cd)', 'lane 1 (pcd)']);
    expect(worker(1).posted).toEqual([
      { type: 'limit', until: null },
      {
        type: 'configure',
        gen: 1,
        dataset: 'bas4',
        config: {
          algo: 'pcd',
          lane: 1,
          hidden: 16,
          init: 'ucd',
          seed: 1,
          every: 100,
          exact_bits: 20,
          binarize: 'sample',
          lr: 0.1,
          k: 1,
          chains: 1000,
          weight_decay: 0,
          momentum: 0,
        },
      },
    ]);
  });

  it('with more lanes than compute at once, the lanes take turns through their workers; fewer lanes end them', () => {
    app = makeApp({ lanesAtOnce: 2 });
    expect(app.turns.taking).toBe(false);
    const c = app.addLane('cd')!;
    expect(app.turns.taking).toBe(true);
    const gates = (id: number) => worker(id).posted.filter((m) => m.type === 'gate');
    for (const id of [0, 1, 2]) expect(gates(id)).toEqual([{ type: 'gate', on: true }]);
    const turns = (id: number) => worker(id).posted.filter((m) => m.type === 'turn').length;
    for (const id of [0, 1, 2]) worker(id).reply({ type: 'wantTurn' });
    expect([turns(0), turns(1), turns(2)]).toEqual([1, 1, 0]);
    worker(0).reply({ type: 'turnOver', more: true });
    expect([turns(0), turns(1), turns(2)]).toEqual([1, 1, 1]);
    // A lane whose worker dies holds no turn: the next lane gets it.
    worker(1).onerror?.({ message: 'gone' } as ErrorEvent);
    expect(turns(0)).toBe(2);
    app.removeLane(c);
    expect(app.turns.taking).toBe(false);
    expect(gates(0)).toEqual([
      { type: 'gate', on: true },
      { type: 'gate', on: false },
    ]);
  });

  it("is running while some lane's worker says so; start and pause go to every lane", () => {
    accept(0);
    accept(1);
    expect(app.running()).toBe(false);
    app.toggle();
    expect(workers.map((w) => w.posted.at(-1))).toEqual([{ type: 'start' }, { type: 'start' }]);
    expect(app.running()).toBe(false); // the page does not decide: the workers do
    worker(1).reply({ type: 'status', gen: 1, status: 'running', message: null });
    expect(app.running()).toBe(true);
    app.toggle();
    expect(worker(0).posted.at(-1)).toEqual({ type: 'pause' });
  });

  it('a lane added while the others run is started; one added while paused is not', () => {
    accept(0, 'running');
    const added = app.addLane('fpcd')!;
    expect(added.id).toBe(2);
    expect(worker(2).posted.map((m) => m.type)).toEqual(['limit', 'configure', 'start']);
    worker(0).reply({ type: 'status', gen: 1, status: 'paused', message: null });
    app.addLane('ucd');
    expect(worker(3).posted.map((m) => m.type)).toEqual(['limit', 'configure']);
    expect(app.addLane('no-such-algo')).toBeNull();
    app.removeLane(added);
    expect(worker(2).terminated).toBe(true);
    expect(app.lanes.map((l) => l.id)).toEqual([0, 1, 3]);
  });

  it('reads settings through the schema: refused text stays out of the configuration with its message', () => {
    app.setShared('hidden', 'many');
    expect(app.settingError('hidden')).toMatch(/^hidden units must be a whole number from 1 to \d+, got 'many'$/);
    expect(worker(0).last('configure')!.gen).toBe(1);
    app.setShared('hidden', '8');
    expect(app.settingError('hidden')).toBe('');
    expect(worker(0).last('configure')).toMatchObject({ gen: 2, config: { hidden: 8 } });
    app.setData('bas3');
    expect(worker(1).last('configure')).toMatchObject({ gen: 3, dataset: 'bas3' });
    app.setStop('1.5');
    expect(app.settingError('stop')).toMatch(/whole number/);
    app.setStop('600');
    expect(worker(1).last('limit')).toEqual({ type: 'limit', until: 600 });
    app.setLaneOption(app.lanes[0], 'k', '1.5');
    expect(app.laneInputError(app.lanes[0], 'k')).toMatch(/Gibbs sweeps k must be a whole number/);
    app.setLaneOption(app.lanes[0], 'momentum', '0.5');
    expect(worker(0).last('configure')).toMatchObject({ config: { momentum: 0.5, k: 1 } });
  });

  it("shows the core's refusal under the input its key names: a lane option, a setting, or the lane itself", () => {
    const [cd, pcd] = app.lanes;
    app.setLaneOption(cd, 'batch', '99');
    const gen = worker(0).last('configure')!.gen;
    worker(0).reply({
      type: 'rejected',
      gen,
      error: { kind: 'invalid_option', key: 'batch', message: "batch size must be at most the 32 rows of 'bas4', got 99" },
      kept: 0,
    });
    expect(app.laneInputError(cd, 'batch')).toBe("batch size must be at most the 32 rows of 'bas4', got 99 (not applied)");
    expect(app.settingError('data')).toBe('');
    expect(app.laneRejection(cd)).toBeNull();
    worker(1).reply({ type: 'rejected', gen: 1, error: { kind: 'invalid_option', key: 'hidden', message: 'hidden units: too many' }, kept: 0 });
    expect(app.settingError('hidden')).toBe('hidden units: too many (not applied)');
    expect(app.laneInputError(pcd, 'hidden')).toBe('');
    app.setShared('seed', '3');
    worker(1).reply({ type: 'rejected', gen: 2, error: { kind: 'invalid', key: null, message: 'invalid input: something' }, kept: 0 });
    expect(app.laneRejection(pcd)).toBe('invalid input: something');
    expect(app.settingError('hidden')).toBe('');
  });

  it('a value the core refuses never stays in the settings: the input shows the value the lanes use, with the message', () => {
    accept(0, 'running');
    accept(1, 'running');
    const [cd, pcd] = app.lanes;
    app.setShared('hidden', '1000000');
    const refusal = { kind: 'invalid_option', key: 'hidden', message: 'hidden units 1000000: each exact evaluation would take about 6 minutes' };
    // Lane 0 refuses; lane 1 has not answered yet.
    worker(0).reply({ type: 'rejected', gen: 2, error: refusal, kept: 1 });
    expect(app.shared.hidden).toBe(16);
    expect(decodeState(catalog, encodeState(catalog, app.state())).state.shared.hidden).toBe(16);
    expect(app.settingError('hidden')).toBe(`${refusal.message} (not applied)`);
    // Lane 1 was sent the refused value: it goes back to the one shown (its old reply is stale).
    expect(worker(1).last('configure')).toMatchObject({ gen: 3, config: { hidden: 16 } });
    worker(1).reply({ type: 'configured', gen: 2, seed: '1', every: 100 });
    expect(pcd.gen).toBe(1);
    expect(worker(0).posted.filter((m) => m.type === 'configure')).toHaveLength(2);
    // A later edit is sent with the value in use, so it is not refused for the old one.
    app.setShared('seed', '5');
    expect(worker(0).last('configure')).toMatchObject({ config: { hidden: 16, seed: 5 } });
    worker(0).reply({ type: 'configured', gen: 3, seed: '5', every: 100 });
    expect(app.settingError('hidden')).toBe('');
    // The same for a lane's own option.
    app.setLaneOption(cd, 'chains', '4194304');
    const gen = worker(0).last('configure')!.gen;
    worker(0).reply({ type: 'rejected', gen, error: { kind: 'invalid_option', key: 'chains', message: 'chains: too many' }, kept: 3 });
    expect(cd.options.chains).toBe(1000);
    expect(app.laneInputError(cd, 'chains')).toBe('chains: too many (not applied)');
    expect(app.state().lanes[0].options.chains).toBe(1000);
  });

  it('reset pauses every lane and rebuilds it; restart gives a broken lane a new worker', () => {
    app.reset();
    expect(worker(0).posted.slice(-2)).toEqual([{ type: 'pause' }, { type: 'reset', gen: 2 }]);
    worker(1).reply({ type: 'status', gen: 0, status: 'fatal', message: 'internal error: boom' });
    app.restart(app.lanes[1]);
    expect(workers).toHaveLength(3);
    expect(workers[1].terminated).toBe(true);
    expect(worker(1).posted.map((m) => m.type)).toEqual(['configure']);
  });

  it("becomes a paper's experiment, keeping the seed, and changes every lane's rate", () => {
    app.setShared('seed', '9');
    const old = [...workers];
    app.applyPreset('ucd-bas4');
    expect(old.every((w) => w.terminated)).toBe(true);
    const p = catalog.presets.find((x) => x.name === 'ucd-bas4')!;
    expect(app.state()).toEqual(presetPlan(p, catalog, 0, 9).state);
    app.applyRate(1);
    expect(app.lanes.every((l) => l.options.lr === p.rates[1])).toBe(true);
    expect(worker(0).last('configure')).toMatchObject({ config: { lr: p.rates[1], seed: 9 } });
    expect(app.state().rate).toBe(1);
    app.applyPreset(null);
    expect(app.state()).toEqual({ ...firstScreen(catalog), shared: { ...firstScreen(catalog).shared, seed: 9 } });
  });

  it('its state survives the URL, whatever was changed', () => {
    app.setShared('seed', '42');
    app.setData('bas3');
    app.setAxis('sweeps');
    app.setStop('600');
    app.setLaneOption(app.lanes[1], 'k', '3');
    app.addLane('cs-dcp');
    app.removeLane(app.lanes[0]);
    const s = app.state();
    expect(decodeState(catalog, encodeState(catalog, s))).toEqual({ state: s, notices: [] });
    expect(s.lanes.map((l) => l.id)).toEqual([1, 2]);
  });

  it('hands a model file to the page with a name that says what it is', () => {
    accept(0);
    app.exportModel(app.lanes[0]);
    expect(worker(0).posted.at(-1)).toEqual({ type: 'export' });
    worker(0).reply({ type: 'model', gen: 1, iter: 0, json: '{"visible":16}' });
    expect(downloads).toEqual([['rbm-cd-seed1-update0.json', '{"visible":16}']]);
    // A diverged lane's model is its last record's: the name says that update, not the lane's.
    worker(0).reply({ type: 'progress', gen: 1, points: [], iter: 37, rate: 0, elapsed: 1, stats: null, view: null });
    worker(0).reply({ type: 'model', gen: 1, iter: 30, json: '{"visible":16}' });
    expect(downloads.at(-1)).toEqual(['rbm-cd-seed1-update30.json', '{"visible":16}']);
    expect(changes).toBeGreaterThan(0);
  });
});

describe("App: the papers' MNIST experiments and the evaluation pool", () => {
  const pool = () => workers.filter((w) => w.name.startsWith('exact evaluation'));

  it('pcd-mnist-25 sets up MNIST, 25 hidden units with an exact curve, the four lanes and η decaying to the end', () => {
    app.applyPreset('pcd-mnist-25');
    expect(app.data).toBe('mnist');
    expect(app.shared).toMatchObject({ hidden: 25, exact_bits: 25, init: 'sdcp', every: 2000, seed: 1 });
    expect(app.lanes.map((l) => l.label)).toEqual(['PCD', 'CD-1', 'CD-10', 'MF-CD']);
    expect(app.lanes.map((l) => l.options.k ?? null)).toEqual([1, 1, 10, null]);
    for (const lane of app.lanes) expect(lane.options).toMatchObject({ lr: 0.1, batch: 100, lr_decay_iters: 4000 });
    expect([app.stop, app.stopUnit, app.axis]).toEqual([4000, 'updates', 'sweeps']);
    expect(worker(0).last('configure')).toMatchObject({ dataset: 'mnist', source: { kind: 'asset', name: 'mnist' }, config: { exact_bits: 25 } });
    app.applyPreset('sdcp-mnist');
    expect(app.shared).toMatchObject({ hidden: 500, every: 40 });
    expect(app.lanes.map((l) => [l.label, l.options.batch])).toEqual([
      ['CD-24', 200],
      [`S-DCP d=6 K'=4`, 200],
      [`CS-DCP d=6 K'=4`, 200],
    ]);
  });

  it("hands a lane's deferred evaluation to the pool, sends the partial sums back, and lets the user skip one", () => {
    app.applyPreset('pcd-mnist-25');
    for (const lane of app.lanes) accept(lane.id, 'running');
    const model = new Uint8Array([1, 2, 3]).buffer;
    // Lanes 0 and 1 ask for the same starting model: one job for both.
    worker(0).reply({ type: 'exact', gen: 1, id: 1, iter: 0, blocks: 12, model });
    worker(1).reply({ type: 'exact', gen: 1, id: 1, iter: 0, blocks: 12, model: model.slice(0) });
    expect(app.lanes[0].exact).toMatchObject({ iter: 0, done: 0, total: 12, state: 'running' });
    expect(pool().map((w) => w.name)).toEqual(['exact evaluation 1', 'exact evaluation 2']);
    const reply = (w: (typeof workers)[number]) => {
      const c = w.last('logz')!;
      w.reply({ type: 'logzParts', id: c.id, from: c.from, parts: new Float64Array(2 * (c.to - c.from)).fill(c.from) });
    };
    reply(pool()[0]);
    expect(app.lanes[1].exact).toMatchObject({ done: 8, total: 12 });
    reply(pool()[1]);
    const got = worker(0).last('exactParts')!;
    expect([got.gen, got.id, got.parts.length, got.parts[0], got.parts[23]]).toEqual([1, 1, 24, 0, 8]);
    expect(worker(1).last('exactParts')!.parts).toEqual(got.parts);
    expect(app.lanes[0].exact).toBeNull();
    // Cancel: the lane trains on without the point; the pool drops the job.
    worker(2).reply({ type: 'exact', gen: 1, id: 1, iter: 2000, blocks: 512, model: new Uint8Array([9]).buffer });
    app.cancelExact(app.lanes[2]);
    expect(worker(2).last('exactSkip')).toEqual({ type: 'exactSkip', gen: 1, id: 1 });
    expect(app.lanes[2].exact).toBeNull();
    // A stale request (an old generation) is not evaluated; a rebuilt lane drops its wait.
    worker(3).reply({ type: 'exact', gen: 9, id: 1, iter: 0, blocks: 4, model });
    expect(app.lanes[3].exact).toBeNull();
    worker(3).reply({ type: 'exact', gen: 1, id: 2, iter: 0, blocks: 4, model: new Uint8Array([7]).buffer });
    app.setLaneOption(app.lanes[3], 'lr', '0.05');
    accept(3);
    expect(app.lanes[3].exact).toBeNull();
  });

  it("watches the evaluation workers as the lanes': one that goes silent fails its evaluation, and the lane trains on", () => {
    const watched: string[] = [];
    app = makeApp({
      watchedWorkers: (name) => {
        watched.push(name);
        const w = new FakeWorker(name);
        workers.push(w);
        return w;
      },
    });
    app.applyPreset('pcd-mnist-25');
    accept(0, 'running');
    worker(0).reply({ type: 'exact', gen: 1, id: 1, iter: 0, blocks: 8, model: new Uint8Array([1]).buffer });
    expect(watched).toContain('exact evaluation 1');
    // The watch ends a silent worker and reports it as an error event (workerHealth.ts).
    pool()[0].onerror?.({ message: 'the worker stopped answering for 10 s' } as ErrorEvent);
    expect(worker(0).last('exactSkip')).toEqual({ type: 'exactSkip', gen: 1, id: 1 });
    expect(app.lanes[0].exact).toMatchObject({ state: 'failed', message: expect.stringContaining('stopped answering') });
  });

  it('shows a failed evaluation on the lane and lets it train on', () => {
    app.applyPreset('pcd-mnist-25');
    accept(0, 'running');
    worker(0).reply({ type: 'exact', gen: 1, id: 1, iter: 0, blocks: 8, model: new Uint8Array([1]).buffer });
    pool()[0].reply({ type: 'logzFailed', id: pool()[0].last('logz')!.id, message: 'blocks 0..8 do not exist' });
    expect(worker(0).last('exactSkip')).toEqual({ type: 'exactSkip', gen: 1, id: 1 });
    expect(app.lanes[0].exact).toMatchObject({ state: 'failed', message: 'the exact evaluation of update 0 failed: blocks 0..8 do not exist' });
  });
});

describe('App: MNIST and the user’s data', () => {
  const mnistOptions = { lr: 0.05, k: 1, chains: null, batch: 100, weight_decay: 0, momentum: 0 };

  it('choosing MNIST makes every worker load the asset from its URL, with the MNIST defaults in one step', () => {
    app.setData('mnist');
    expect(app.shared).toMatchObject({ hidden: 500, init: 'sdcp', every: 80, seed: 1 });
    expect([app.stop, app.stopUnit]).toEqual([10, 'epochs']);
    for (const lane of app.lanes) expect(lane.options).toEqual({ ...mnistOptions, lr_decay_iters: 800 });
    const msg = worker(1).last('configure')!;
    expect(msg).toMatchObject({ dataset: 'mnist', config: { hidden: 500, batch: 100, lr_decay_iters: 800, lr: 0.05 } });
    expect('chains' in msg.config).toBe(false); // PCD's chains = the batch rows
    expect(msg.source).toEqual({
      key: 'asset:mnist',
      kind: 'asset',
      name: 'mnist',
      label: 'the MNIST digits',
      files: [{ url: 'https://example.org/rbm/assets/generated/mnist.bin.gz', what: 'the MNIST digits' }],
    });
    // 10 epochs of 8 000 rows at 100 rows per update.
    expect(worker(1).last('limit')).toEqual({ type: 'limit', until: 800 });
    expect(app.untilOf(app.lanes[0])).toBe(800);
    expect(encodeState(catalog, app.state())).toMatch(
      /^data=mnist&hidden=500&init=sdcp&seed=1&every=80&.*&stop=10&stop_unit=epochs&lane=cd:lr=0\.05,k=1,batch=100,lr_decay_iters=800/,
    );
  });

  it('another MNIST split keeps the settings, one evaluation per epoch and the end in epochs; a small set brings the first screen back', () => {
    app.setData('mnist');
    app.setShared('hidden', '64');
    app.setData('mnist-test');
    expect(app.shared).toMatchObject({ hidden: 64, every: 10 });
    expect(app.lanes.map((l) => l.options.lr_decay_iters)).toEqual([100, 100]);
    expect(worker(0).last('limit')).toEqual({ type: 'limit', until: 100 });
    app.setData('bas3');
    const first = firstScreen(catalog);
    expect(app.state()).toEqual({ ...first, data: 'bas3' });
    expect(worker(0).last('configure')!.source).toBeUndefined();
    expect(worker(0).last('limit')).toEqual({ type: 'limit', until: null });
  });

  it("an end point in epochs follows each lane's batch; a decay of η to the end point follows the end point", () => {
    app.setData('mnist');
    const [cd, pcd] = app.lanes;
    app.setLaneOption(pcd, 'batch', '50');
    expect([app.untilOf(cd), app.untilOf(pcd)]).toEqual([800, 1600]);
    expect(pcd.options.lr_decay_iters).toBe(1600);
    expect(worker(1).last('configure')!.config).toMatchObject({ batch: 50, lr_decay_iters: 1600 });
    app.setStop('5');
    expect([cd.options.lr_decay_iters, pcd.options.lr_decay_iters]).toEqual([400, 800]);
    expect(worker(0).last('limit')).toEqual({ type: 'limit', until: 400 });
    app.setStopUnit('updates');
    expect([worker(0).last('limit')!.until, worker(1).last('limit')!.until]).toEqual([5, 5]);
    expect(cd.options.lr_decay_iters).toBe(5);
    // A decay the user set elsewhere stays; without an end point a following decay stops (η constant).
    app.setLaneOption(cd, 'lr_decay_iters', '3000');
    app.setStop('');
    expect([cd.options.lr_decay_iters, pcd.options.lr_decay_iters]).toEqual([3000, null]);
    expect(worker(1).last('limit')).toEqual({ type: 'limit', until: null });
    app.setStop('0');
    expect(app.settingError('stop')).toMatch(/whole number from 1/);
  });

  it('a lane added on MNIST gets the MNIST lane defaults', () => {
    app.setData('mnist-test');
    const lane = app.addLane('fpcd')!;
    expect(lane.options).toMatchObject({ ...mnistOptions, lr_decay_iters: 100 });
    expect(worker(lane.id).last('configure')!.source?.key).toBe('asset:mnist');
  });

  it("shows a worker's failure to load the data under the data input", () => {
    app.setData('mnist');
    const gen = worker(0).last('configure')!.gen;
    worker(0).reply({ type: 'loading', gen, label: 'the MNIST digits', received: 1000, total: 1_600_000 });
    expect(app.lanes[0].dataLoad).toEqual({ label: 'the MNIST digits', received: 1000, total: 1_600_000 });
    const error = { kind: 'invalid_option', key: 'data', message: 'could not download the MNIST digits: the server answered 404 Not Found' };
    worker(0).reply({ type: 'rejected', gen, error, kept: 0 });
    expect(app.settingError('data')).toBe(`${error.message} (not applied)`);
    expect(app.lanes[0].dataLoad).toBeNull();
  });

  const probeWorker = () => workers.filter((w) => w.name === 'data check').at(-1)!;
  const files = [
    { name: 'digits-labels-idx1-ubyte', size: 108, url: 'blob:labels' },
    { name: 'digits-idx3-ubyte.gz', size: 5000, url: 'blob:images' },
  ];

  it('a good IDX file is checked by a short-lived worker, joins the picker under its name and every lane trains on it', async () => {
    const done = app.addFiles(files);
    expect(app.checking).toBe('digits-idx3-ubyte.gz');
    const probe = probeWorker().last('probe')!;
    expect(probe.source).toEqual({
      key: `idx:1:digits`,
      kind: 'idx',
      name: 'digits',
      label: "'digits-idx3-ubyte.gz'",
      files: [
        { url: 'blob:images', what: "'digits-idx3-ubyte.gz'" },
        { url: 'blob:labels', what: "the labels file 'digits-labels-idx1-ubyte'" },
      ],
    });
    probeWorker().reply({ type: 'probed', id: probe.id, sets: [{ name: 'digits', rows: 100, m: 784, shape: [28, 28], labelled: true }], error: null });
    expect(await done).toBe(true);
    expect(probeWorker().terminated).toBe(true);
    expect(app.checking).toBeNull();
    expect(app.dataSets.at(-1)).toMatchObject({ name: 'digits', rows: 100, m: 784 });
    expect(app.data).toBe('digits');
    expect(worker(0).last('configure')).toMatchObject({ dataset: 'digits', source: probe.source, config: { hidden: 500, batch: 100, every: 1 } });
    expect(released).toEqual([]);
    // A link naming it works while it is loaded.
    expect(decodeState(app.linkCatalog(), encodeState(app.linkCatalog(), app.state())).notices).toEqual([]);
    expect(decodeState(catalog, encodeState(catalog, app.state())).state).toEqual(firstScreen(catalog));
  });

  it('a bad IDX file leaves everything as it was, with one message under the data input', async () => {
    const before = app.state();
    const sent = workers.map((w) => w.posted.length);
    const done = app.addFiles([{ name: 'junk.gz', size: 10, url: 'blob:junk' }]);
    const probe = probeWorker().last('probe')!;
    const message = "'junk.gz' is damaged: it starts like a gzip file but does not unpack (incorrect header check)";
    probeWorker().reply({ type: 'probed', id: probe.id, sets: [], error: { kind: 'invalid_option', key: 'data', message } });
    expect(await done).toBe(false);
    expect(app.settingError('data')).toBe(message);
    expect(app.state()).toEqual(before);
    expect(app.dataSets).toHaveLength(catalog.data_sets.length);
    expect(workers.slice(0, 2).map((w) => w.posted.length)).toEqual(sent.slice(0, 2)); // the lanes heard nothing
    expect(released).toEqual(['blob:junk']);
    // Choosing a data set clears the message.
    app.setData('bas3');
    expect(app.settingError('data')).toBe('');
  });

  it("a data set the lanes refuse never stays on screen: the page goes back to the lanes' data and settings, with the refusal under the data input", async () => {
    accept(0);
    accept(1);
    const before = app.state();
    const done = app.addFiles([files[1]]);
    const probe = probeWorker().last('probe')!;
    probeWorker().reply({ type: 'probed', id: probe.id, sets: [{ name: 'digits', rows: 1_000_000, m: 256, shape: [16, 16], labelled: false }], error: null });
    expect(await done).toBe(true);
    expect(app.data).toBe('digits');
    expect(app.shared.hidden).toBe(500); // the images' defaults came with it
    // Lane 0 refuses the new data; lane 1 has not answered yet.
    const message = 'a 256×500 lane with a batch of 100 would hold about 1 GiB, over the 256 MiB the page allows per lane';
    const gen = worker(0).last('configure')!.gen;
    worker(0).reply({ type: 'rejected', gen, error: { kind: 'invalid_option', key: 'batch', message }, kept: 1 });
    expect(app.state()).toEqual(before);
    expect(app.settingError('data')).toBe(`The data set 'digits' was refused, so the lanes stay on '${before.data}': ${message}`);
    // Lane 1 goes back to the data and settings the page shows; its answer for the new data is stale.
    expect(worker(1).last('configure')).toMatchObject({ dataset: before.data, config: { hidden: before.shared.hidden } });
    expect(worker(1).last('limit')).toEqual({ type: 'limit', until: app.untilOf(app.lanes[1]) });
    worker(1).reply({ type: 'configured', gen: gen, seed: '1', every: 100 });
    expect(app.lanes[1].trainsOn).toBe(before.data);
    // A restart of the refusing lane builds what it trains on.
    app.lanes[0].restart();
    expect(worker(0).last('configure')).toMatchObject({ dataset: before.data, config: { hidden: before.shared.hidden } });
  });

  it('a labels file alone is refused at once, without a worker', async () => {
    expect(await app.addFiles([files[0]])).toBe(false);
    expect(app.settingError('data')).toMatch(/labels file \(idx1-ubyte\): choose its images file/);
    expect(workers.some((w) => w.name === 'data check')).toBe(false);
  });
});

describe('App: live edits, rebuilds and model files (issue 10)', () => {
  let questions: string[];
  let answer: boolean;

  beforeEach(() => {
    questions = [];
    answer = false;
    app = makeApp({
      confirm: (q) => {
        questions.push(q);
        return answer;
      },
    });
    accept(0);
    accept(1);
  });

  /** Lane `id` has trained `iter` updates for `ms` milliseconds. */
  const trained = (id: number, iter: number, ms: number) =>
    worker(id).reply({ type: 'progress', gen: app.lanes[id].gen, points: [], iter, rate: 100, elapsed: ms, stats: null, view: null });

  it('a live option (the schema says which) reaches the built lane without a rebuild, and the link follows', () => {
    const live = catalog.options.filter((o) => o.live).map((o) => o.key);
    expect(live).toEqual(['lr', 'lr_decay_iters', 'weight_decay', 'momentum']);
    trained(1, 5000, 60_000);
    const before = worker(1).posted.length;
    expect(app.setLaneOption(app.lanes[1], 'lr', '0.02')).toBe(true);
    expect(worker(1).posted.slice(before)).toEqual([{ type: 'live', key: 'lr', value: 0.02 }]);
    expect(questions).toEqual([]);
    expect(app.lanes[1].options.lr).toBe(0.02);
    expect(app.lanes[1].iter).toBe(5000);
    expect(decodeState(catalog, encodeState(catalog, app.state())).state.lanes[1].options.lr).toBe(0.02);
    // A restarted worker gets the edited value in its configuration.
    app.restart(app.lanes[1]);
    expect(worker(1).last('configure')?.config.lr).toBe(0.02);
  });

  it('an edit that needs a rebuild asks first on a long run; declined, nothing changes', () => {
    trained(1, 5000, 60_000);
    const before = worker(1).posted.length;
    expect(app.setLaneOption(app.lanes[1], 'k', '3')).toBe(false);
    expect(questions).toHaveLength(1);
    expect(questions[0]).toMatch(/^Changing Gibbs sweeps k rebuilds lane 1 \(pcd\) \(5,000 updates\): its curve starts again from update 0\. Continue\?$/);
    expect(worker(1).posted.length).toBe(before);
    expect(app.lanes[1].options.k).toBe(1);
    answer = true;
    expect(app.setLaneOption(app.lanes[1], 'k', '3')).toBe(true);
    expect(worker(1).last('configure')?.config.k).toBe(3);
    accept(1);
    // A shared option asks about every long run it wipes; a short run is not worth a question.
    questions = [];
    trained(0, 10, 200);
    answer = false;
    expect(app.setShared('hidden', '12')).toBe(true);
    expect(questions).toEqual([]); // lane 1 was rebuilt: no long run left
    accept(0);
    accept(1);
    trained(0, 9000, 30_000);
    expect(app.setShared('hidden', '10')).toBe(false);
    expect(questions[0]).toMatch(/^Changing hidden units rebuilds lane 0 \(cd\) \(9,000 updates\)/);
    expect(app.shared.hidden).toBe(12);
  });

  it('loads a model file into a lane: the worker continues it with the recorded options; a refusal keeps the lane', async () => {
    const lane = app.lanes[1];
    const file = (text: string) => {
      const bytes = new TextEncoder().encode(text);
      return { name: 'rbm-pcd.json', size: bytes.length, arrayBuffer: async () => bytes.buffer as ArrayBuffer };
    };
    expect(await loadModelInto(lane, file('{"visible":16}'))).toBe(true);
    const msg = worker(1).last('loadModel');
    expect(msg?.gen).toBe(2);
    expect(msg?.name).toBe('rbm-pcd.json');
    expect(new TextDecoder().decode(msg?.bytes)).toBe('{"visible":16}');
    expect(lane.modelFile?.state).toBe('loading');
    worker(1).reply({ type: 'configured', gen: 2, seed: '1', every: 100, loaded: { name: 'rbm-pcd.json', config: { ...msg?.config, k: 4, lr: 0.05 } } });
    expect(lane.gen).toBe(2);
    expect(lane.modelFile).toEqual({ name: 'rbm-pcd.json', state: 'loaded', message: null });
    expect([lane.options.k, lane.options.lr]).toEqual([4, 0.05]);
    // A refused file: the message, and the lane shown stays the one it was.
    expect(await loadModelInto(lane, file('nonsense'))).toBe(true);
    worker(1).reply({ type: 'modelRefused', gen: 3, message: "'rbm-pcd.json' was not loaded: malformed input: model file: expected value at line 1 column 1" });
    expect(lane.gen).toBe(2);
    expect(lane.modelFile?.state).toBe('refused');
    expect(lane.modelFile?.message).toMatch(/was not loaded: malformed input/);
    // Too large or empty: refused by the page, never read nor sent.
    const sentBefore = worker(1).posted.length;
    const huge = { name: 'big.json', size: 257 * 2 ** 20, arrayBuffer: async () => Promise.reject(new Error('read')) };
    expect(await loadModelInto(lane, huge)).toBe(false);
    expect(lane.modelFile?.message).toMatch(/^'big\.json' has 269\.5 MB, more than the 256 MB a model file may have/);
    expect(await loadModelInto(lane, { ...huge, size: 0 })).toBe(false);
    expect(lane.modelFile?.message).toMatch(/is empty/);
    expect(worker(1).posted.length).toBe(sentBefore);
  });
});

describe('App: busy feedback', () => {
  it('says why Start moves nothing when every lane stands at "stop at", until the end point or a reset changes', () => {
    accept(0);
    accept(1);
    app.setStop('300');
    for (const id of [0, 1])
      worker(id).reply({ type: 'progress', gen: app.lanes[id].gen, points: [], iter: 300, rate: 100, elapsed: 10, stats: null, view: null });
    app.start();
    expect(app.runMessage).toMatch(/^Nothing moves: every lane has reached "stop at" \(update 300\)/);
    app.setStop('400');
    expect(app.runMessage).toBeNull();
    app.start();
    expect(app.runMessage).toBeNull();
  });

  it("a lane waiting for its worker's answer says what it computes", () => {
    expect(busyWord({ modelFile: null }, 16, { hidden: 16, exact_bits: 20 })).toBe('building… computing exact log Z (2^16 states)…');
    expect(busyWord({ modelFile: null }, 784, { hidden: 500, exact_bits: 20 })).toBe('building…');
    expect(busyWord({ modelFile: { name: 'a.json', state: 'loading', message: null } }, 16, { hidden: 16, exact_bits: 20 })).toBe('loading the model file…');
  });
});

describe('App: claims judged on AIS brackets (issue 27: sdcp-mnist)', () => {
  it("hands the core the lanes' AIS brackets as one-trial bands, up to the preset's end", () => {
    const calls: { preset: string; bands: unknown; end: number }[] = [];
    app = makeApp({
      assetUrl: (asset) => `https://example.org/${asset}.bin.gz`,
      evaluateClaims: (preset, _lr, bands, end) => {
        calls.push({ preset, bands, end });
        return [{ claim: 'c', status: 'holds', holds: true, detail: 'numbers', trials: 1 }];
      },
    });
    app.applyPreset('sdcp-mnist');
    expect(app.verdicts()).toBeNull(); // no bracket yet: nothing to judge
    const side = (atll: number) => ({
      log_z: 0,
      log_z_lo: 0,
      log_z_hi: 0,
      atll,
      atll_lo: atll - 1,
      atll_hi: atll + 1,
      method: 'ais' as const,
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
    const lane = app.lanes[2];
    lane.brackets = [
      { iter: 0, sweeps: 0, ais: side(-200), raise: side(-201) },
      { iter: 200, sweeps: 4800, ais: side(-110), raise: side(-111) },
    ];
    expect(app.verdicts()).toEqual([{ claim: 'c', status: 'holds', holds: true, detail: 'numbers', trials: 1 }]);
    expect(calls.at(-1)).toEqual({
      preset: 'sdcp-mnist',
      end: 200,
      bands: [
        {
          label: lane.label,
          trials: 1,
          points: [
            { iter: 0, median: -200, stats: {} },
            { iter: 200, median: -110, stats: {} },
          ],
        },
      ],
    });
  });
});

describe('App: trials on MNIST (issue 27)', () => {
  it('refuses the field there with the reason at the input, and keeps the link clean', () => {
    // MNIST under no preset of its own (its presets' trials measure their checkpoints, issue 30).
    app.applyPreset('pcd-mnist-25');
    expect(app.setTrials('2')).toBe(true);
    expect(app.trials).toBe(2);
    app.setTrials('');
    app.setData('mnist-test');
    app.setTrials('2');
    expect(app.trials).toBeNull();
    expect(app.settingErrors.trials).toMatch(/^trials run on the small data sets only .*one live run per lane here/);
    expect(app.state().trials).toBeNull();
    expect(encodeState(catalog, app.state())).not.toMatch(/trials=/);
    app.setTrials('');
    expect(app.settingErrors.trials).toBeUndefined();
    // A link asking for them says why it was not followed.
    const d = decodeState(catalog, `#${encodeState(catalog, app.state())}&trials=2`);
    expect(d.state.trials).toBeNull();
    expect(d.notices).toEqual([expect.stringMatching(/^The link's trials=2 was ignored: trials run on the small data sets only/)]);
    // The small sets keep their trials.
    app.applyPreset('ucd-bas4');
    app.setTrials('3');
    expect(app.trials).toBe(3);
    expect(app.settingErrors.trials).toBeUndefined();
  });
});
