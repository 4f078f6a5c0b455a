import { describe, expect, it } from 'vitest';
import { missingNote, presetDescription, presetPlan, rateLabel } from '../src/presets';
import { laneConfig, newLane } from '../src/state';
import type { Catalog, CoreConfig, PresetInfo } from '../src/types';

// The core's defaults and registry as `defaultConfig()` and `algorithms()` give them (a subset
// of keys is enough: the page only compares what the presets set).
const defaults: CoreConfig = {
  algo: 'cd', hidden: 16, lr: 0.1, lr_decay_iters: null, k: 1, chains: null, batch: null, init: 'sdcp', seed: null,
  lane: 0, every: 10, exact_bits: 20, d: 3, kprime: 4, nu_mu: 0.01, nu_lambda: 0.01, max_steps: 100,
};
const catalog: Catalog = {
  algorithms: [
    { name: 'cd', title: 'CD-k', paper: 'Hinton 2002', options: ['k', 'chains'] },
    { name: 'pcd', title: 'PCD', paper: 'Tieleman 2008', options: ['k', 'chains'] },
    { name: 'sdcp', title: 'S-DCP', paper: 'Upadhya & Sastry 2017', options: ['d', 'kprime', 'chains'] },
  ],
  dataSets: [],
  defaults,
  presets: [],
};

/** A preset lane as `presets()` gives it: `Preset::lane_config` at the first rate, seed 1. */
const lane = (index: number, algo: string, label: string, over: CoreConfig, p: { hidden: number; init: string; chains: number | null; batch?: number | null; lr: number; every: number }) => ({
  label,
  algo,
  config: { ...defaults, algo, hidden: p.hidden, init: p.init, chains: p.chains, batch: p.batch ?? null, lr: p.lr, seed: 1, lane: index, every: p.every, ...over },
});

const sb = { hidden: 4, init: 'sdcp', chains: null, lr: 0.3, every: 100 };
const shiftingBar: PresetInfo = {
  name: 'sdcp-shifting-bar', title: 'S-DCP paper, Shifting Bar', paper: 'Upadhya & Sastry 2017, Fig. 1', data: 'shifting-bar',
  hidden: 4, init: 'sdcp', chains: null, batch: null, rates: [0.3, 0.5], rate_notes: ["the paper's smaller rate", ''],
  expect: 'CD-12 and PCD-12 get stuck near −3.15.', iters: 50000, every: 100, trials: 25,
  lanes: [
    lane(0, 'cd', 'CD-12', { k: 12 }, sb),
    lane(1, 'pcd', 'PCD-12', { k: 12 }, sb),
    lane(2, 'sdcp', "S-DCP d=3 K'=4", { d: 3, kprime: 4 }, sb),
    lane(3, 'sdcp', "S-DCP d=2 K'=6, batch 3", { d: 2, kprime: 6, batch: 3 }, sb),
  ],
};
const u = { hidden: 16, init: 'ucd', chains: 1000, lr: 0.1, every: 100 };
const ucd: PresetInfo = {
  name: 'ucd-bas4', title: 'UCD paper, BAS 4x4', paper: 'Qiu, Zhang & Wang 2020, Fig. 2', data: 'bas4',
  hidden: 16, init: 'ucd', chains: 1000, batch: null, rates: [0.1, 0.01], rate_notes: ["the authors' published code", "the paper's text"],
  expect: 'CD-1 and PCD-1 diverge; UCD converges (mean τ ≈ 2.4).', iters: 10000, every: 100, trials: 25,
  lanes: [lane(0, 'cd', 'CD-1', {}, u), lane(1, 'ucd', 'UCD', { max_steps: 100 }, u), lane(2, 'pcd', 'PCD-1', {}, u)],
};

describe('presetPlan', () => {
  it('sets the shared settings as the preset says and keeps the page\'s seed', () => {
    const plan = presetPlan(shiftingBar, catalog, 0, 42);
    expect(plan.settings).toEqual({ dataset: 'shifting-bar', hidden: 4, seed: 42, init: 'sdcp', every: 100, stop: 50000 });
    expect(plan.lr).toBe(0.3);
    expect(plan.missing).toEqual([]);
  });

  it('makes one lane per preset lane, with the paper\'s label and the algorithm\'s options filled from the core', () => {
    const plan = presetPlan(shiftingBar, catalog, 1, 1);
    expect(plan.lanes.map((l) => [l.index, l.algo, l.label])).toEqual([
      [0, 'cd', 'CD-12'], [1, 'pcd', 'PCD-12'], [2, 'sdcp', "S-DCP d=3 K'=4"], [3, 'sdcp', "S-DCP d=2 K'=6, batch 3"],
    ]);
    expect(plan.lanes[0].inputs).toEqual({ lr: '0.5', k: '12', chains: '' });
    expect(plan.lanes[2].inputs).toEqual({ lr: '0.5', d: '3', kprime: '4', chains: '' });
    // An option the algorithm does not list but the preset sets (batch) still gets an input.
    expect(plan.lanes[3].inputs).toEqual({ lr: '0.5', d: '2', kprime: '6', chains: '', batch: '3' });
  });

  it('gives back exactly the core\'s lane configuration (at the chosen rate, seed and lane)', () => {
    for (const p of [shiftingBar, ucd]) {
      for (const r of [0, 1]) {
        const plan = presetPlan(p, catalog, r, 7);
        for (const planned of plan.lanes) {
          const res = laneConfig(plan.settings, newLane(planned.index, planned.algo, catalog, planned));
          if (!('config' in res)) throw new Error(JSON.stringify(res.errors));
          const want: CoreConfig = { ...p.lanes[planned.index].config, lr: p.rates[r], seed: 7 };
          // Every key the page sends is the core's value; every key it leaves out is at the core's default.
          for (const [key, value] of Object.entries(res.config)) expect([key, value]).toEqual([key, want[key]]);
          for (const [key, value] of Object.entries(want)) if (!(key in res.config)) expect([key, value]).toEqual([key, defaults[key]]);
          expect(res.config.lane).toBe(planned.index);
        }
      }
    }
  });

  it('leaves out lanes whose algorithm the core does not register, keeping the others\' stream indices', () => {
    const plan = presetPlan(ucd, catalog, 0, 1);
    expect(plan.lanes.map((l) => [l.index, l.label])).toEqual([[0, 'CD-1'], [2, 'PCD-1']]);
    expect(plan.missing).toEqual([{ label: 'UCD', algo: 'ucd' }]);
    expect(plan.lanes[0].inputs).toEqual({ lr: '0.1', k: '1', chains: '1000' });
    expect(missingNote(plan.missing)).toMatch(/^UCD \(algorithm 'ucd'\) is not available in this build of the core, so its lane is left out/);
    expect(missingNote([])).toBe('');
    expect(missingNote([{ label: 'A', algo: 'a' }, { label: 'B', algo: 'b' }])).toMatch(/are not available.*their lanes/);
  });

  it('picks the lane up as soon as the core registers the algorithm', () => {
    const withUcd: Catalog = {
      ...catalog,
      algorithms: [...catalog.algorithms, { name: 'ucd', title: 'UCD', paper: 'Qiu et al. 2020', options: ['k', 'chains', 'max_steps'] }],
    };
    const plan = presetPlan(ucd, withUcd, 1, 1);
    expect(plan.missing).toEqual([]);
    expect(plan.lanes.map((l) => l.label)).toEqual(['CD-1', 'UCD', 'PCD-1']);
    expect(plan.lanes[1].inputs).toEqual({ lr: '0.01', k: '1', chains: '1000', max_steps: '100' });
  });

  it('clamps a rate index out of range', () => {
    expect(presetPlan(ucd, catalog, 9, 1).lr).toBe(0.01);
    expect(presetPlan(ucd, catalog, -1, 1).lr).toBe(0.1);
  });
});

describe('preset texts', () => {
  it('says where each rate comes from', () => {
    expect(rateLabel(ucd, 0)).toBe("η = 0.1 (the authors' published code)");
    expect(rateLabel(ucd, 1)).toBe("η = 0.01 (the paper's text)");
    expect(rateLabel(shiftingBar, 1)).toBe('η = 0.5');
  });
  it('describes the set-up, the paper and what to look for in one line', () => {
    const d = presetDescription(ucd);
    expect(d).toContain('Qiu, Zhang & Wang 2020, Fig. 2');
    expect(d).toContain('1,000 chains');
    expect(d).toContain('10,000 updates');
    expect(d).toContain('`rbm reproduce ucd-bas4` runs 25 trials');
    expect(d).toContain('mean τ ≈ 2.4');
    expect(d).not.toContain('\n');
    expect(presetDescription(shiftingBar)).toContain('one chain per training row, full batch');
  });
});
