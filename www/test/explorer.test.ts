// The page's claims-explorer grid (issue 29): the axes and defaults a preset offers, the fields'
// checks, the request and the `rbm explore` command line (explorerGrid.ts); and a run over fake
// trial workers (explorerRun.ts): cells in grid order, judged when their last trial ends, a
// failed trial failing only its cell, Cancel keeping the finished cells.
import { beforeEach, describe, expect, it } from 'vitest';
import { claimMaps } from '../src/app/claimMap';
import {
  defaultValues,
  exploreAxes,
  exploreCommand,
  exploreRefusal,
  type GridChoice,
  gridRequest,
  gridSizeProblem,
  MAX_PAGE_CELLS,
  ownValue,
  parseCount,
  parseValues,
  valuesText,
} from '../src/app/explorerGrid';
import { ExplorerRun } from '../src/app/explorerRun';
import type { ExplorePlan, ExploreVerdict, LaneBand, PresetEntry } from '../src/generated/core';
import type { ToWorker } from '../src/protocol/messages';
import { FakeWorker } from './fakeWorker';
import { catalog } from './fixture';

const preset = (name: string) => catalog.presets.find((p) => p.name === name) as PresetEntry;

describe('the grid the page offers', () => {
  it('offers η, σ and the knobs some lane reads, with defaults around the preset’s own', () => {
    const bas3 = preset('sdcp-bas3');
    expect(exploreAxes(bas3, catalog)).toEqual(['lr', 'init_sigma', 'k', 'd', 'kprime', 'chains', 'batch']);
    // UCD's preset has no S-DCP lane: no d, no K′.
    expect(exploreAxes(preset('ucd-bas4'), catalog)).toEqual(['lr', 'init_sigma', 'k', 'chains', 'batch']);
    expect(defaultValues('lr', ownValue(bas3, catalog, 'lr', 0.3, 0.01))).toEqual([0.075, 0.15, 0.3, 0.6]);
    expect(defaultValues('init_sigma', ownValue(bas3, catalog, 'init_sigma', 0.3, 0.01))).toEqual([0.001, 0.01, 0.1]);
    // k: the CD, PCD and CG lanes' 12 (S-DCP's lanes do not read k).
    expect(ownValue(bas3, catalog, 'k', 0.3, 0.01)).toBe(12);
    expect(defaultValues('k', 12)).toEqual([1, 12, 24]);
    expect(ownValue(bas3, catalog, 'd', 0.3, 0.01)).toBe(3);
    expect(ownValue(preset('ucd-bas4'), catalog, 'chains', 0.1, 0.1)).toBe(1000);
    expect(valuesText([0.075, 0.15, 0.3, 0.6])).toBe('0.075, 0.15, 0.3, 0.6');
  });

  it('refuses the presets measured on MNIST with a reason, and presets without claims', () => {
    expect(exploreRefusal(preset('sdcp-bas3'))).toBeNull();
    expect(exploreRefusal(preset('sdcp-mnist'))).toMatch(/small data sets.*mnist-test.*rbm explore sdcp-mnist/);
    expect(exploreRefusal({ ...preset('sdcp-bas3'), claims: [] })).toMatch(/no claims/);
  });

  it('reads a field’s values and refuses NaN, negatives, zero, repeats, fractions of counts and too many', () => {
    expect(parseValues('lr', '0.1, 0.3 1e-2')).toEqual([0.1, 0.3, 0.01]);
    expect(parseValues('lr', '0.1, NaN')).toMatch(/'NaN' is not a number/);
    expect(parseValues('lr', '0.1, x')).toMatch(/'x' is not a number/);
    expect(parseValues('init_sigma', '-0.1')).toMatch(/above 0, got -0.1/);
    expect(parseValues('lr', '0')).toMatch(/above 0/);
    expect(parseValues('lr', '0.1, 0.1')).toMatch(/given twice/);
    expect(parseValues('k', '1, 2.5')).toMatch(/whole number, got 2.5/);
    expect(parseValues('lr', '')).toMatch(/at least one value/);
    expect(parseValues('lr', '1 2 3 4 5 6 7 8 9')).toMatch(/at most 8 values/);
    expect(parseCount('3', 'trials per cell', 1, 25)).toBe(3);
    expect(parseCount('0', 'trials per cell', 1, 25)).toMatch(/from 1 to 25, got '0'/);
    expect(parseCount('2.5', 'trials per cell', 1, 25)).toMatch(/whole number/);
    expect(parseCount('-1', 'updates per trial', 1, 100)).toMatch(/whole number/);
  });

  it('asks the core for the two axes swept, η at the preset’s rate otherwise, and writes the same command', () => {
    const g: GridChoice = {
      preset: 'sdcp-bas3',
      x: 'lr',
      y: 'init_sigma',
      xs: [0.1, 0.3],
      ys: [0.001, 0.01],
      rate: 0.3,
      trials: 1,
      iters: 200,
      every: 100,
      seed: 1,
    };
    expect(gridRequest(g)).toEqual({ seed: 1, trials_per_cell: 1, iters: 200, every: 100, lrs: [0.1, 0.3], init_sigmas: [0.001, 0.01] });
    expect(exploreCommand(g)).toBe('rbm explore sdcp-bas3 --lrs 0.1,0.3 --init-sigmas 0.001,0.01 --trials-per-cell 1 --iters 200 --every 100 --seed 1');
    const k: GridChoice = { ...g, x: 'k', xs: [1, 12], rate: 0.5 };
    expect(gridRequest(k)).toMatchObject({ lrs: [0.5], ks: [1, 12], init_sigmas: [0.001, 0.01] });
    expect(exploreCommand(k)).toBe('rbm explore sdcp-bas3 --lrs 0.5 --init-sigmas 0.001,0.01 --ks 1,12 --trials-per-cell 1 --iters 200 --every 100 --seed 1');
    // A value typed with many digits reaches the command line as the page runs it.
    expect(exploreCommand({ ...g, xs: [0.1 + 0.2] })).toContain('--lrs 0.30000000000000004 ');
  });

  it('bounds the cells and the trials of a grid', () => {
    const g: GridChoice = { preset: 'sdcp-bas3', x: 'lr', y: 'init_sigma', xs: [1, 2], ys: [1, 2], rate: 0.3, trials: 3, iters: 200, every: 100, seed: 1 };
    expect(gridSizeProblem(g, 5)).toBeNull();
    const many = Array.from({ length: 9 }, (_, i) => i + 1);
    expect(gridSizeProblem({ ...g, xs: many, ys: many }, 5)).toMatch(new RegExp(`81 cells: the page runs at most ${MAX_PAGE_CELLS}`));
    expect(gridSizeProblem({ ...g, xs: many.slice(0, 8), ys: many.slice(0, 8), trials: 25 }, 5)).toMatch(
      /8,000 trials \(64 cells × 5 lanes × 25\): the page runs at most 2,000/,
    );
  });
});

/** A plan of `cells` cells over η with two lanes and `runs` trials each. */
function plan(cells: number, runs: number): ExplorePlan {
  return {
    runs,
    iters: 10,
    every: 10,
    own_init_sigma: 0.01,
    lanes: [
      { label: 'A', algo: 'cd' },
      { label: 'B', algo: 'pcd' },
    ],
    claims: ['A ends above B'],
    cells: Array.from({ length: cells }, (_, i) => ({
      cell: i,
      settings: { lr: 0.1 * (i + 1), init_sigma: null, k: null, d: null, kprime: null, chains: null, batch: null },
      preset_point: i === 0,
      configs: [
        { algo: 'cd', lane: 0, lr: 0.1 * (i + 1) },
        { algo: 'pcd', lane: 1, lr: 0.1 * (i + 1) },
      ],
    })),
    estimate: { train_secs: 1, eval_secs: 0, wall_secs: 1 },
  };
}

/** A fake core's judge: "A ends above B" by the final medians, with their difference. */
function judge(_preset: string, bands: LaneBand[], end: number): ExploreVerdict[] {
  const fin = (l: string) => bands.find((b) => b.label === l)?.points.find((p) => p.iter === end)?.median ?? Number.NaN;
  const margin = fin('A') - fin('B');
  return [
    {
      claim: 'A ends above B',
      status: margin > 0 ? 'holds' : 'fails',
      holds: margin > 0,
      detail: '',
      trials: bands[0].trials,
      quantity: 'A − B',
      value: margin,
      margin,
    },
  ];
}

describe('ExplorerRun', () => {
  let workers: FakeWorker[];
  let clock: number;
  const trialMsgs = (w: FakeWorker) => w.posted.filter((m): m is Extract<ToWorker, { type: 'trial' }> => m.type === 'trial');
  /** Plays a worker's whole trial: records at 0 and 10, the last at `atll`. */
  const finish = (w: FakeWorker, atll: number, error: string | null = null) => {
    const m = trialMsgs(w).at(-1) as Extract<ToWorker, { type: 'trial' }>;
    w.reply({
      type: 'trialPoints',
      id: m.id,
      points: [
        { iter: 0, sweeps: 0, atll: -6, stats: {}, ms: 0 },
        { iter: 10, sweeps: 10, atll, stats: {}, ms: 5 },
      ],
    });
    w.reply({ type: 'trialDone', id: m.id, ms: 5, error, fatal: false });
    return m;
  };
  const make = (cells: number, runs: number) =>
    new ExplorerRun(
      'p',
      'bas3',
      plan(cells, runs),
      7,
      () => [],
      (name) => {
        const w = new FakeWorker(name);
        workers.push(w);
        return w;
      },
      2,
      judge,
      () => undefined,
      () => clock,
    );
  beforeEach(() => {
    workers = [];
    clock = 0;
  });

  it('runs the cells in grid order with their own configurations and judges each when its trials end', () => {
    const run = make(2, 1);
    expect(workers).toHaveLength(2);
    const [a, b] = workers.map((w) => trialMsgs(w)[0]);
    // Cell 0's two lanes first, each its configuration, seeded by the grid's seed, trial 0.
    expect([a.config.lane, b.config.lane, a.config.lr, a.trial, a.seed, a.until, a.dataset]).toEqual([0, 1, 0.1, 0, 7, 10, 'bas3']);
    finish(workers[0], -3);
    // The free worker takes cell 1's first trial.
    expect(trialMsgs(workers[0])[1].config).toMatchObject({ lane: 0, lr: 0.2 });
    expect(run.cells.map((c) => c.state)).toEqual(['running', 'running']);
    clock = 100;
    finish(workers[1], -4);
    expect(run.cells[0].state).toBe('done');
    expect(run.cells[0].verdicts?.[0]).toMatchObject({ holds: true, value: 1 });
    const p = run.progress();
    expect([p.done, p.total]).toEqual([1, 2]);
    // Two of the four trials done (cell 1's have no record yet) in 100 ms: 100 ms left.
    expect(p.fraction).toBeCloseTo(0.5);
    expect(p.etaMs).toBeCloseTo(100);
    finish(workers[0], -5);
    finish(workers[1], -4.5);
    expect(run.status).toBe('done');
    expect(run.progress()).toMatchObject({ done: 2, fraction: 1, etaMs: 0 });
    const lines = run.claims();
    expect(lines.map((l) => [l.cell, l.lr, l.holds, l.value, l.preset_point])).toEqual([
      [0, 0.1, true, 1, true],
      [1, 0.2, false, -0.5, false],
    ]);
    const [m] = claimMaps(lines, 'lr', 'init_sigma');
    expect(m.cells[0].map((c) => c?.holds)).toEqual([true, false]);
  });

  it('fails only the cell of a failed trial (a dead worker) and goes on with the others', () => {
    const run = make(2, 2);
    // Worker 2 dies on cell 0's lane B: its cell fails; the other cells run on.
    workers[1].onerror?.({ message: 'gone', preventDefault: () => undefined } as unknown as ErrorEvent);
    expect(run.cells[0].state).toBe('failed');
    expect(run.cells[0].message).toMatch(/trial 0 of B/);
    // Cell 0's other trials are not handed out: the replacement worker runs cell 1.
    const fresh = workers[2];
    expect(trialMsgs(fresh)[0].config).toMatchObject({ lr: 0.2 });
    // Cell 0's trial still under way ends: ignored, and its worker takes cell 1's next.
    finish(workers[0], -3);
    expect(run.cells[0].state).toBe('failed');
    expect(trialMsgs(workers[0])[1].config).toMatchObject({ lane: 1, lr: 0.2 });
    for (const w of [fresh, workers[0], fresh, workers[0]]) finish(w, -3);
    expect(run.cells[1].state).toBe('done');
    expect(run.cells[1].verdicts?.[0].trials).toBe(2);
    expect(run.status).toBe('done');
    expect(run.claims().map((l) => l.cell)).toEqual([1]);
  });

  it('Cancel ends every worker and keeps the finished cells', () => {
    const run = make(3, 1);
    finish(workers[0], -3);
    finish(workers[1], -4);
    expect(run.cells[0].state).toBe('done');
    run.cancel();
    expect(workers.every((w) => w.terminated)).toBe(true);
    expect(run.status).toBe('cancelled');
    expect(run.cells.map((c) => c.state)).toEqual(['done', 'cancelled', 'cancelled']);
    expect(run.busy).toBe(0);
    expect(run.claims().map((l) => l.cell)).toEqual([0]);
    // Nothing moves after it.
    const v = run.version;
    finish(workers[0], -1);
    expect(run.version).toBe(v);
    expect(run.progress()).toMatchObject({ done: 1, cancelled: 2, etaMs: 0 });
  });
});
