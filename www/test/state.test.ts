import { describe, expect, it } from 'vitest';
import {
  FIRST_SETTINGS, MAX_POINTS, appendPoints, emptyCurve, formatRate, laneConfig, laneOptionKeys, newLane, optionInfo,
  parseOption, parseSettings, sweepsPerUpdate,
} from '../src/state';
import type { Catalog } from '../src/types';

const catalog: Catalog = {
  algorithms: [
    { name: 'cd', title: 'CD-k', paper: 'Hinton 2002', options: ['k', 'chains'] },
    { name: 'mf-cd', title: 'MF-CD', paper: 'Welling & Hinton 2002', options: [] },
    { name: 'ucd', title: 'UCD', paper: 'Qiu et al. 2020', options: ['chains', 'max_steps', 'brand_new'] },
  ],
  dataSets: [],
  defaults: { algo: 'cd', lr: 0.1, k: 1, chains: null, max_steps: 100, brand_new: 0.5, fast_lr: null },
  presets: [],
};

describe('option inputs', () => {
  it('shows the learning rate and then exactly the algorithm\'s options', () => {
    expect(laneOptionKeys(catalog.algorithms[0])).toEqual(['lr', 'k', 'chains']);
    expect(laneOptionKeys(catalog.algorithms[1])).toEqual(['lr']);
    expect(laneOptionKeys(catalog.algorithms[2])).toEqual(['lr', 'chains', 'max_steps', 'brand_new']);
  });
  it('gives a new algorithm\'s unknown option an input with the core default', () => {
    const lane = newLane(3, 'ucd', catalog);
    expect(lane.inputs).toEqual({ lr: '0.1', chains: '1000', max_steps: '100', brand_new: '0.5' });
    expect(optionInfo('brand_new').label).toBe('brand new');
  });
  it('starts the first screen at the UCD paper\'s code set-up', () => {
    expect(newLane(0, 'cd', catalog).inputs).toEqual({ lr: '0.1', k: '1', chains: '1000' });
    expect(FIRST_SETTINGS).toMatchObject({ dataset: 'bas4', hidden: 16, init: 'ucd' });
  });
});

describe('parseOption', () => {
  const lr = optionInfo('lr');
  const k = optionInfo('k');
  const chains = optionInfo('chains');
  it('reads numbers, including exponents', () => {
    expect(parseOption(lr, ' 0.05 ')).toEqual({ ok: true, value: 0.05 });
    expect(parseOption(lr, '1e39')).toEqual({ ok: true, value: 1e39 });
    expect(parseOption(lr, '-1')).toEqual({ ok: true, value: -1 }); // ranges are the core's job
  });
  it('refuses text, fractions for whole numbers, and empty required inputs', () => {
    expect(parseOption(lr, 'fast')).toMatchObject({ ok: false });
    expect(parseOption(lr, '0x10')).toMatchObject({ ok: false });
    expect(parseOption(k, '1.5')).toMatchObject({ ok: false, message: expect.stringContaining('whole number') });
    expect(parseOption(k, '')).toMatchObject({ ok: false });
    expect(parseOption(lr, '1e400')).toMatchObject({ ok: false });
  });
  it('reads an empty optional input as the core default', () => {
    expect(parseOption(chains, '')).toEqual({ ok: true, value: null });
  });
});

describe('laneConfig', () => {
  it('joins the shared settings and the lane\'s inputs, with the lane id as the core\'s lane index', () => {
    const lane = newLane(4, 'cd', catalog);
    lane.inputs.chains = '';
    expect(laneConfig(FIRST_SETTINGS, lane)).toEqual({
      config: { algo: 'cd', hidden: 16, seed: 1, init: 'ucd', every: 100, lane: 4, lr: 0.1, k: 1 },
    });
  });
  it('returns the messages of unreadable inputs instead', () => {
    const lane = newLane(0, 'cd', catalog);
    lane.inputs.k = 'two';
    const r = laneConfig(FIRST_SETTINGS, lane);
    expect('errors' in r && Object.keys(r.errors)).toEqual(['k']);
  });
});

describe('parseSettings', () => {
  const text = { dataset: 'bas3', hidden: '8', seed: '42', init: 'sdcp', every: '10', stop: '' };
  it('reads good settings; an empty end point means "run on"', () => {
    expect(parseSettings(text)).toEqual({ settings: { dataset: 'bas3', hidden: 8, seed: 42, init: 'sdcp', every: 10, stop: null } });
    expect(parseSettings({ ...text, stop: ' 50000 ' })).toMatchObject({ settings: { stop: 50000 } });
  });
  it('names each bad input', () => {
    const r = parseSettings({ ...text, hidden: '0', seed: '-3', every: 'x', stop: '2.5' });
    expect('errors' in r && Object.keys(r.errors).sort()).toEqual(['every', 'hidden', 'seed', 'stop']);
  });
});

describe('curves', () => {
  it('appends in order and skips points it already has', () => {
    const c = emptyCurve();
    appendPoints(c, [{ iter: 0, sweeps: 0, atll: -11 }, { iter: 10, sweeps: 10, atll: -10 }]);
    appendPoints(c, [{ iter: 10, sweeps: 10, atll: -10 }, { iter: 20, sweeps: 20, atll: -9 }]);
    expect(c.iter).toEqual([0, 10, 20]);
    expect(c.atll).toEqual([-11, -10, -9]);
  });
  it('thins itself to at most MAX_POINTS, keeping the first and the latest point', () => {
    const c = emptyCurve();
    const n = 5 * MAX_POINTS;
    appendPoints(c, Array.from({ length: n }, (_, i) => ({ iter: i * 10, sweeps: i * 10, atll: -i })));
    expect(c.iter.length).toBeLessThanOrEqual(MAX_POINTS);
    expect(c.iter.length).toBeGreaterThan(MAX_POINTS / 4);
    expect(c.iter[0]).toBe(0);
    expect(c.iter[c.iter.length - 1]).toBe((n - 1) * 10);
    expect(c.sweeps).toEqual(c.iter);
    expect(c.atll).toEqual(c.iter.map((x) => -x / 10));
  });
});

it('gives the Gibbs sweeps per update of a curve (equal compute), none before the first update', () => {
  const c = emptyCurve();
  expect(sweepsPerUpdate(c)).toBeNull();
  appendPoints(c, [{ iter: 0, sweeps: 0, atll: -9 }]);
  expect(sweepsPerUpdate(c)).toBeNull();
  appendPoints(c, [{ iter: 100, sweeps: 1200, atll: -8 }, { iter: 200, sweeps: 2480, atll: -7 }]);
  expect(sweepsPerUpdate(c)).toBe(12.4);
});

it('formats rates', () => {
  expect(formatRate(0)).toBe('–');
  expect(formatRate(512.4)).toBe('512/s');
  expect(formatRate(21_500)).toBe('21.5k/s');
});
