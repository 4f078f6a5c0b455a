import { describe, expect, it } from 'vitest';
import { introText } from '../src/app/intro';
import {
  extentText,
  missingNote,
  paperScaleOffered,
  presetDescription,
  presetExtent,
  presetPlan,
  presetTitle,
  rateLabel,
  scaleNote,
  studyMeasure,
} from '../src/app/presets';
import { laneConfig } from '../src/app/state';
import type { Catalog, PresetEntry } from '../src/generated/core';
import { catalog } from './fixture';

const preset = (name: string): PresetEntry => catalog.presets.find((p) => p.name === name)!;
const shiftingBar = preset('sdcp-shifting-bar');
const ucd = preset('ucd-bas4');

describe('presetPlan', () => {
  it("sets the shared options as the preset says, keeps the page's seed, the equal-compute axis and the end point", () => {
    const { state, lr, missing } = presetPlan(shiftingBar, catalog, 0, 42);
    expect(state.data).toBe('shifting-bar');
    expect(state.shared).toEqual({ hidden: 4, init: 'sdcp', seed: 42, every: 100, exact_bits: 20, binarize: 'sample' });
    expect([state.axis, state.stop, state.preset, state.rate]).toEqual(['sweeps', 50000, 'sdcp-shifting-bar', 0]);
    expect(lr).toBe(0.3);
    expect(missing).toEqual([]);
  });

  it("makes one lane per preset lane, with the paper's label, id = its stream index, and every option it reads", () => {
    const { state } = presetPlan(shiftingBar, catalog, 1, 1);
    expect(state.lanes.map((l) => [l.id, l.algo, l.label])).toEqual([
      [0, 'cd', 'CD-12'],
      [1, 'pcd', 'PCD-12'],
      [2, 'sdcp', "S-DCP d=3 K'=4"],
      [3, 'cs-dcp', "CS-DCP d=3 K'=4"],
      [4, 'cg', 'CG-12'],
    ]);
    expect(state.lanes[0].options).toMatchObject({ lr: 0.5, k: 12, chains: null, batch: null });
    expect(state.lanes[2].options).toMatchObject({ lr: 0.5, d: 3, kprime: 4, chains: null });
  });

  it("gives back exactly the core's lane configuration (at the chosen rate, seed and lane)", () => {
    for (const p of catalog.presets) {
      for (let r = 0; r < p.rates.length; r++) {
        const { state } = presetPlan(p, catalog, r, 7);
        for (const lane of state.lanes) {
          const config = laneConfig(state.shared, lane);
          const want: Record<string, number | string | null> = { ...p.lanes[lane.id].config, lr: p.rates[r], seed: 7 };
          // Every key the page sends is the core's value; every key it leaves out is null there
          // (derived) or an option the algorithm does not read.
          for (const [key, value] of Object.entries(config)) expect([key, value]).toEqual([key, want[key]]);
          for (const [key, value] of Object.entries(want)) {
            if (key in config) continue;
            const reads = catalog.options.find((o) => o.key === key)?.algos.includes(lane.algo);
            if (reads) expect([key, value]).toEqual([key, null]);
          }
        }
      }
    }
  });

  it("leaves out lanes whose algorithm the core does not register, keeping the others' stream indices", () => {
    const without: Catalog = { ...catalog, algorithms: catalog.algorithms.filter((a) => a.name !== 'ucd') };
    const plan = presetPlan(ucd, without, 0, 1);
    expect(plan.state.lanes.map((l) => [l.id, l.label])).toEqual(ucd.lanes.flatMap((l, i) => (l.algo === 'ucd' ? [] : [[i, l.label]])));
    expect(plan.missing).toEqual([{ label: 'UCD', algo: 'ucd' }]);
    expect(missingNote(plan.missing)).toMatch(/^UCD \(algorithm 'ucd'\) is not available in this build of the core, so its lane is left out/);
    expect(missingNote([])).toBe('');
    expect(
      missingNote([
        { label: 'A', algo: 'a' },
        { label: 'B', algo: 'b' },
      ]),
    ).toMatch(/are not available.*their lanes/);
    expect(presetPlan(ucd, catalog, 0, 1).missing).toEqual([]);
  });

  it('clamps a rate index out of range', () => {
    expect(presetPlan(ucd, catalog, 9, 1).lr).toBe(ucd.rates[ucd.rates.length - 1]);
    expect(presetPlan(ucd, catalog, -1, 1).lr).toBe(ucd.rates[0]);
  });
});

describe('preset texts', () => {
  it('says where each rate comes from', () => {
    expect(rateLabel(ucd, 0)).toBe("η = 0.1 (the authors' published code)");
    expect(rateLabel(ucd, 1)).toBe("η = 0.01 (the paper's text)");
  });
  it('describes the set-up, the paper and how the page runs it in one line; the claims replace what to look for', () => {
    const d = presetDescription(ucd, true);
    expect(d).toContain('Qiu, Zhang & Wang 2020');
    expect(d).toContain('1,000 chains');
    expect(d).toContain('10,000 updates');
    // ucd-bas4 runs fewer trials than the paper (its paper scale has them): the text says whose they are.
    expect(d).toContain(
      `the preset's ${ucd.trials} trials by default, the paper's ${ucd.paper_scale?.trials} at its scale), seeded as \`rbm reproduce ucd-bas4\` seeds them`,
    );
    expect(ucd.paper_scale?.trials).not.toBe(ucd.trials);
    expect(presetDescription(shiftingBar, true)).toContain(`the paper's ${shiftingBar.trials} trials by default)`);
    expect(d).not.toContain(ucd.expect);
    expect(d).not.toContain('\n');
    expect(presetDescription(ucd, false)).toContain(`\`rbm reproduce ucd-bas4\` runs ${ucd.trials} trials; this is one`);
    expect(presetDescription(shiftingBar, true)).toContain('one chain per training row, full batch');
  });
  it('says what the chart plots in the menu and the first box (issue 27: not "exact" for AIS, not "test" for the training digits)', () => {
    const pcd = preset('pcd-mnist-25');
    expect(presetTitle(pcd)).toBe('PCD paper, MNIST, 25 hidden units, exact log-likelihood of the training digits');
    expect(presetTitle(ucd)).toBe(ucd.title);
    const intro = (name: string) => introText(catalog, presetPlan(preset(name), catalog, 0, 1).state);
    expect(intro('sdcp-mnist')).toMatch(/the chart plots each lane's AIS estimate of the mnist-test log-likelihood every 40 updates/);
    expect(intro('sdcp-mnist')).not.toMatch(/exact/);
    expect(intro('pcd-mnist-25')).toMatch(/exact log-likelihood of the training digits/);
    expect(intro('pcd-mnist-25')).not.toMatch(/race on [^.]*exact test log-likelihood/);
    expect(intro('ucd-bas4')).toMatch(/the chart plots each lane's exact average log-likelihood/);
  });
  it('brackets every lane of a preset measured by AIS at its own schedule (sdcp-mnist: every 40 updates)', () => {
    const sdcp = preset('sdcp-mnist');
    expect(presetPlan(sdcp, catalog, 0, 1).state.lanes.map((l) => l.aisEvery)).toEqual(sdcp.lanes.map(() => sdcp.every));
    expect(presetPlan(preset('pcd-mnist-25'), catalog, 0, 1).state.lanes.every((l) => l.aisEvery === undefined)).toBe(true);
  });
  it("sets the preset's trials on the small sets, none on MNIST", () => {
    expect(presetPlan(ucd, catalog, 0, 1).state.trials).toBe(ucd.trials);
    expect(presetPlan(preset('pcd-mnist-25'), catalog, 0, 1).state.trials).toBeNull();
  });
  it("says how the MNIST presets' page curves differ from what the papers measure", () => {
    const pcd = presetDescription(preset('pcd-mnist-25'), false);
    expect(pcd).toContain('Tieleman 2008');
    expect(pcd).toContain('25 hidden units, one chain per batch row, batch 100, η decaying linearly to 0, 4,000 updates');
    expect(pcd).toMatch(/exact log-likelihood of the training digits .* 2\^25 states .* report the mnist-test digits'/);
    const sdcp = presetDescription(preset('sdcp-mnist'), false);
    expect(sdcp).toContain('runs 1 trial;');
    expect(sdcp).toMatch(
      /by AIS, and so does the page: .*the chart plots each lane's AIS estimate of the mnist-test digits \(thresholded at 0.5, as `rbm reproduce` evaluates them; .*--protocol paper:SEED.*\) every 40 updates .*100 particles × 1,000 β/,
    );
    expect(sdcp).not.toMatch(/exact (average )?log-likelihood/);
    expect(presetDescription(ucd, true)).not.toMatch(/digits/);
    // A study of pcd-mnist-25 measures the test digits exactly, as `rbm reproduce` does.
    expect(presetDescription(preset('pcd-mnist-25'), true)).toMatch(
      /A study's trials are measured as `rbm reproduce` measures them: the exact log-likelihood of the mnist-test digits .* 2\^25 states in the trial's worker/,
    );
  });
});

describe("the paper's scale (issue 30)", () => {
  const sdcp = preset('sdcp-mnist');
  const pcd25 = preset('pcd-mnist-25');

  it("sets the catalog's paper-scale trials, length, interval and AIS (as `rbm reproduce --scale paper`); the page's scale is the preset's own", () => {
    const ps = sdcp.paper_scale!;
    const paper = presetPlan(sdcp, catalog, 0, 3, 'paper').state;
    expect([paper.trials, paper.stop, paper.stopUnit, paper.shared.every, paper.scale]).toEqual([ps.trials, ps.iters, 'updates', ps.every, 'paper']);
    expect(paper.lanes.every((l) => l.aisEvery === ps.every)).toBe(true);
    // The page's scale: MNIST runs live lanes (no trials), the preset's length.
    const page = presetPlan(sdcp, catalog, 0, 3).state;
    expect([page.trials, page.stop, page.scale]).toEqual([null, sdcp.iters, 'page']);
    // A preset without a paper scale stays at its own.
    const bar = presetPlan(shiftingBar, catalog, 0, 3, 'paper').state;
    expect([bar.scale, bar.trials, bar.stop]).toEqual(['page', shiftingBar.trials, shiftingBar.iters]);
    expect(presetExtent(shiftingBar, 'paper')).toEqual({
      trials: shiftingBar.trials,
      iters: shiftingBar.iters,
      every: shiftingBar.every,
      ais: shiftingBar.ais,
    });
  });

  it('measures the trials of an MNIST preset on its evaluation set: by its AIS at the scale, or exactly; none for the others', () => {
    expect(studyMeasure(sdcp, 'paper')).toEqual({ dataset: sdcp.eval_data, particles: sdcp.paper_scale!.ais!.particles, betas: sdcp.paper_scale!.ais!.betas });
    expect(studyMeasure(sdcp, 'page')).toEqual({ dataset: sdcp.eval_data, particles: sdcp.ais!.particles, betas: sdcp.ais!.betas });
    const betas = (scale: 'page' | 'paper') => (studyMeasure(sdcp, scale) as { betas: number }).betas;
    expect(betas('paper')).toBeGreaterThan(betas('page'));
    // Measured exactly (784×25: log Z enumerated in the trial's worker, on its GPU where it has one).
    expect(studyMeasure(pcd25, 'paper')).toEqual({ dataset: pcd25.eval_data, exact: true });
    expect(studyMeasure(pcd25, 'page')).toEqual({ dataset: pcd25.eval_data, exact: true });
    expect(studyMeasure(ucd, 'page')).toBeNull();
  });

  it('is offered where a WebGPU adapter is, for a preset with a paper scale whose study the page measures', () => {
    expect(paperScaleOffered(sdcp, true)).toBe(true);
    expect(paperScaleOffered(sdcp, false)).toBe(false);
    // Measured exactly on MNIST (784×25): each checkpoint's log Z enumerated in the trial's worker.
    expect(paperScaleOffered(pcd25, true)).toBe(true);
    expect(paperScaleOffered(pcd25, false)).toBe(false);
    expect(paperScaleOffered(ucd, true)).toBe(false);
    expect(paperScaleOffered(undefined, true)).toBe(false);
  });

  it('says what the study at a scale runs, before Start', () => {
    const ps = sdcp.paper_scale!;
    const checkpoints = ps.iters / ps.every + 1;
    expect(ps.iters % ps.every).toBe(0);
    const text = extentText(sdcp, 'paper');
    expect(text).toBe(
      `${ps.trials} trials per lane of ${ps.iters.toLocaleString('en')} updates, AIS of ${ps.ais!.particles} particles × ${ps.ais!.betas.toLocaleString('en')} β at each of its ${checkpoints} checkpoints (${(ps.trials * sdcp.lanes.length * checkpoints).toLocaleString('en')} measurements in all)`,
    );
    expect(scaleNote(sdcp, 'paper', 'Adapter A')).toMatch(
      /^The paper's scale: .* as `rbm reproduce sdcp-mnist --scale paper` runs it\. On the GPU \(WebGPU, f32\): Adapter A;/,
    );
    // Its AIS runs go to the study's AIS worker, batched across trials; pcd-mnist-25's exact
    // measure (below) does not.
    expect(scaleNote(sdcp, 'paper', 'Adapter A')).toContain('annealed together in batches by one study AIS worker on the GPU');
    expect(scaleNote(pcd25, 'paper', 'Adapter A')).not.toContain('batches');
    expect(scaleNote(sdcp, 'page', null)).toMatch(/^The page's scale: 1 trial per lane .* as `rbm reproduce sdcp-mnist` runs it\. On the CPU \(wasm\)\.$/);
    // pcd-mnist-25: the exact test log-likelihood at every checkpoint (rbm reproduce's measure).
    const pp = pcd25.paper_scale!;
    const cps = Math.floor(pp.iters / pp.every) + 1 + (pp.iters % pp.every === 0 ? 0 : 1);
    expect(extentText(pcd25, 'paper')).toBe(
      `${pp.trials} trials per lane of ${pp.iters.toLocaleString('en')} updates, the exact log-likelihood of the ${pcd25.eval_data} digits (2^${pcd25.hidden} states enumerated) at each of its ${cps} checkpoints (${pp.trials * pcd25.lanes.length * cps} measurements in all)`,
    );
    expect(scaleNote(pcd25, 'paper', 'Adapter A')).toMatch(
      /^The paper's scale: 10 trials per lane .* as `rbm reproduce pcd-mnist-25 --scale paper` runs it\. On the GPU \(WebGPU, f32\): Adapter A;/,
    );
  });
});
