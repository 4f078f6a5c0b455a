import { beforeEach, describe, expect, it } from 'vitest';
import { App } from '../src/app';
import { presetPlan } from '../src/presets';
import { firstScreen } from '../src/state';
import { decodeState, encodeState } from '../src/urlState';
import { FakeWorker } from './fakeWorker';
import { catalog } from './fixture';

let workers: FakeWorker[];
let changes: number;
let downloads: [string, string][];
let app: App;

/** The worker of lane `id` (the latest one made for it). */
const worker = (id: number) => workers.filter((w) => w.name.startsWith(`lane ${id} `)).at(-1)!;

/** Plays a worker accepting lane `id`'s latest configuration, then reporting `status`. */
function accept(id: number, status: 'ready' | 'running' = 'ready'): void {
  const w = worker(id);
  const gen = w.posted.filter((m) => m.type === 'configure' || m.type === 'reset').length;
  w.reply({ type: 'configured', gen, seed: '1', every: 100 });
  w.reply({ type: 'status', gen, status, message: null });
}

beforeEach(() => {
  workers = [];
  changes = 0;
  downloads = [];
  app = new App(
    catalog,
    (name) => {
      const w = new FakeWorker(name);
      workers.push(w);
      return w;
    },
    { changed: () => changes++, download: (name, text) => downloads.push([name, text]) },
  );
  app.load(firstScreen(catalog));
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
    worker(0).reply({ type: 'model', gen: 1, json: '{"visible":16}' });
    expect(downloads).toEqual([['rbm-cd-seed1-update0.json', '{"visible":16}']]);
    expect(changes).toBeGreaterThan(0);
  });
});
