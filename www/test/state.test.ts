import { describe, expect, it } from 'vitest';
import { appendPoints, emptyCurve, MAX_POINTS, sweepsPerUpdate } from '../src/app/curve';
import { formatPerSecond } from '../src/app/progress';
import { DATA_DEFAULTS, dataFamily, firstScreen, IMAGES_BATCH, laneConfig, newLaneState } from '../src/app/state';
import { dataOptionText, exactNote, studyExactNote } from '../src/views/controls';
import { formatStatWithUnit } from '../src/views/format';
import { catalog } from './fixture';

describe('page state', () => {
  it("starts at the UCD paper's code set-up: CD-1 and PCD on BAS 4×4", () => {
    const s = firstScreen(catalog);
    expect(s.data).toBe('bas4');
    expect(s.shared).toEqual({ hidden: 16, init: 'ucd', seed: 1, every: 100, exact_bits: 20, binarize: 'sample' });
    expect(s.lanes.map((l) => [l.id, l.algo, l.options.lr, l.options.k, l.options.chains])).toEqual([
      [0, 'cd', 0.1, 1, 1000],
      [1, 'pcd', 0.1, 1, 1000],
    ]);
    expect([s.axis, s.stop, s.preset]).toEqual(['iter', null, null]);
  });

  it("gives a new lane every option its algorithm reads, at the schema's defaults", () => {
    const lane = newLaneState(catalog, 5, 'ucd', {});
    expect(lane.options).toEqual({ lr: 0.1, k: 1, chains: null, max_steps: 100, batch: null, lr_decay_iters: null, weight_decay: 0, momentum: 0 });
    expect(Object.keys(newLaneState(catalog, 0, 'mf-cd').options)).not.toContain('k');
  });

  it("joins the shared options and the lane's into the core's configuration, the lane id as its lane index", () => {
    const s = firstScreen(catalog);
    s.shared.seed = null;
    expect(laneConfig(s.shared, s.lanes[1])).toEqual({
      algo: 'pcd',
      lane: 1,
      hidden: 16,
      init: 'ucd',
      every: 100,
      exact_bits: 20,
      binarize: 'sample',
      lr: 0.1,
      k: 1,
      chains: 1000,
      weight_decay: 0,
      momentum: 0,
    });
  });
});

describe('curves', () => {
  it('appends in order and skips points it already has', () => {
    const c = emptyCurve();
    appendPoints(c, [
      { iter: 0, sweeps: 0, atll: -11 },
      { iter: 10, sweeps: 10, atll: -10 },
    ]);
    appendPoints(c, [
      { iter: 10, sweeps: 10, atll: -10 },
      { iter: 20, sweeps: 20, atll: -9 },
    ]);
    expect(c.iter).toEqual([0, 10, 20]);
    expect(c.atll).toEqual([-11, -10, -9]);
  });
  it('thins itself to at most MAX_POINTS, keeping the first and the latest point', () => {
    const c = emptyCurve();
    const n = 5 * MAX_POINTS;
    appendPoints(
      c,
      Array.from({ length: n }, (_, i) => ({ iter: i * 10, sweeps: i * 10, atll: -i })),
    );
    expect(c.iter.length).toBeLessThanOrEqual(MAX_POINTS);
    expect(c.iter.length).toBeGreaterThan(MAX_POINTS / 4);
    expect(c.iter[0]).toBe(0);
    expect(c.iter[c.iter.length - 1]).toBe((n - 1) * 10);
    expect(c.sweeps).toEqual(c.iter);
    expect(c.atll).toEqual(c.iter.map((x) => -x / 10));
  });
  it('gives the Gibbs sweeps per update (equal compute), none before the first update', () => {
    const c = emptyCurve();
    expect(sweepsPerUpdate(c)).toBeNull();
    appendPoints(c, [{ iter: 0, sweeps: 0, atll: -9 }]);
    expect(sweepsPerUpdate(c)).toBeNull();
    appendPoints(c, [
      { iter: 100, sweeps: 1200, atll: -8 },
      { iter: 200, sweeps: 2480, atll: -7 },
    ]);
    expect(sweepsPerUpdate(c)).toBe(12.4);
  });
});

describe('formats', () => {
  it('formats rates', () => {
    expect(formatPerSecond(0, 'updates')).toBe('– updates/s');
    expect(formatPerSecond(512.4, 'updates')).toBe('512 updates/s');
    expect(formatPerSecond(21_500, 'updates')).toBe('21.5k updates/s');
  });
  it('shows a statistic with its declared unit', () => {
    const [meanTau, , , truncated] = catalog.algorithms.find((a) => a.name === 'ucd')!.stats;
    expect(formatStatWithUnit(meanTau, 2.4123)).toBe('2.41 steps');
    expect(formatStatWithUnit(truncated, 0)).toBe('0');
  });
});

describe('per-data-set defaults', () => {
  const mnist = catalog.data_sets.find((d) => d.name === 'mnist')!;
  it("sorts the catalog's sets into the small sets and images", () => {
    expect(catalog.data_sets.map((d) => [d.name, dataFamily(d)])).toEqual([
      ['bas3', 'small'],
      ['shifting-bar', 'small'],
      ['bas4', 'small'],
      ['mnist', 'images'],
      ['mnist-valid', 'images'],
      ['mnist-test', 'images'],
    ]);
  });
  it('gives MNIST 500 hidden units, batches of 100, chains = batch rows, η decaying to the end (10 epochs), one evaluation per epoch', () => {
    const d = DATA_DEFAULTS.images;
    expect(d.shared(mnist)).toEqual({ hidden: 500, init: 'sdcp', every: 80 });
    expect(d.lane(mnist)).toEqual({ lr: 0.05, chains: null, batch: 100 });
    // A smaller file of the user's: one batch of all its rows, evaluated once per epoch = update.
    const small = { ...mnist, rows: 60 };
    expect([d.lane(small).batch, d.shared(small).every]).toEqual([60, 1]);
    expect([d.decayToEnd, d.stop, d.stopUnit]).toEqual([true, 10, 'epochs']);
    expect(IMAGES_BATCH).toBe(100);
  });
  it("gives the small sets the first screen's settings", () => {
    const s = firstScreen(catalog);
    const d = DATA_DEFAULTS.small;
    for (const [k, v] of Object.entries(d.shared(catalog.data_sets[2]))) expect(s.shared[k]).toBe(v);
    for (const [k, v] of Object.entries(d.lane(catalog.data_sets[2]))) for (const lane of s.lanes) expect(lane.options[k]).toBe(v);
    expect([d.decayToEnd, d.stop, d.stopUnit]).toEqual([false, s.stop, s.stopUnit]);
  });
  it('says what an MNIST download costs in the picker, and when there is no exact curve', () => {
    expect(dataOptionText(mnist)).toMatch(/^MNIST digits, training split .* — loads 1\.6 MB once$/);
    expect(dataOptionText(catalog.data_sets[0])).toBe(catalog.data_sets[0].description);
    // The one-file page has no MNIST asset inside: it says what to do instead.
    expect(dataOptionText(mnist, true)).toMatch(/not in this offline file: load MNIST's IDX files with "Your own data…"$/);
    expect(dataOptionText(catalog.data_sets[0], true)).toBe(catalog.data_sets[0].description);
    expect(exactNote(784, 500, 20)).toMatch(
      /^No exact log-likelihood for more than 20 hidden units on 784 visible units .*"Estimate log-likelihood \(AIS\)" button of each lane gives an AIS \/ RAISE bracket/,
    );
    expect(exactNote(784, 20, 20)).toBe('');
    // A study measured exactly (pcd-mnist-25): its trial workers enumerate, not the evaluation pool.
    expect(studyExactNote('mnist-test', 25)).toMatch(/^Each trial measures its checkpoints itself.*mnist-test digits.*over 2\^25 states in the trial's worker/);
    expect(studyExactNote('mnist-test', 25)).not.toMatch(/evaluation worker/);
    expect(exactNote(784, 500, 20, 2, 40)).toMatch(
      /draw no exact curve: each brackets its test log-likelihood by AIS \/ RAISE every 40 updates \(the points on the chart/,
    );
    expect(exactNote(16, 500, 20)).toBe(''); // the visible layer is enumerated
  });
});
