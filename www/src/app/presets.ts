// The papers' experiments (the catalog's presets, the table `rbm reproduce` runs) turned into
// the page's state. Pure logic, no DOM: every option comes from the core's full configuration
// of each lane (`Preset::lane_config`), read through the schema; an algorithm the loaded core
// does not register is left out with a note (it appears by itself once the core registers it).
import type { AisSpec, Catalog, Extent, PresetEntry } from '../generated/core';
import type { TrialMeasure } from '../protocol/messages';
import { defaultValue, laneOptionKeys, type OptionValue, optionSpec, sharedOptions } from '../protocol/schema';
import { type LaneState, type PageState, type Scale, viewState } from './state';

/** What the page becomes when a preset is chosen. */
export interface PresetPlan {
  state: PageState;
  /** Lanes whose algorithm the loaded core does not register. */
  missing: { label: string; algo: string }[];
  lr: number;
}

/** A configuration value read as the option's value (the schema default when absent). */
function configValue(catalog: Catalog, config: Record<string, number | string | null>, key: string): OptionValue {
  if (key in config) return config[key];
  const spec = optionSpec(catalog, key);
  return spec ? defaultValue(spec) : null;
}

/** Preset `p`'s trials, length, checkpoint interval and AIS at `scale`: the catalog's paper
 * scale (`rbm reproduce NAME --scale paper`) where it has one, else the preset's own. */
export function presetExtent(p: PresetEntry, scale: Scale): Extent {
  if (scale === 'paper' && p.paper_scale) return p.paper_scale;
  return { trials: p.trials, iters: p.iters, every: p.every, ais: p.ais };
}

/** Whether the page's trials of preset `p` are measured by the study itself at every
 * checkpoint, on its evaluation set, as `rbm reproduce` measures them: by AIS (sdcp-mnist) or
 * by the exact ATLL, log Z enumerated in the trial's worker (pcd-mnist-25). */
export function measuredByStudy(p: PresetEntry | undefined): boolean {
  return p?.eval_data != null;
}

/** The study's measure at each checkpoint of preset `p`'s trials at `scale` (null: the lanes'
 * own exact curves). */
export function studyMeasure(p: PresetEntry, scale: Scale): TrialMeasure | null {
  if (!measuredByStudy(p)) return null;
  const dataset = p.eval_data ?? p.data;
  const a: AisSpec | null = presetExtent(p, scale).ais;
  return a ? { dataset, particles: a.particles, betas: a.betas } : { dataset, exact: true };
}

/** Whether the picker offers preset `p` at the paper's scale: it has one, the page runs its
 * study on MNIST (measured at every checkpoint by AIS or the exact ATLL), and the browser has a
 * WebGPU adapter (the paper's scale is an hour or more of the CPU's workers). */
export function paperScaleOffered(p: PresetEntry | undefined, adapter: boolean): boolean {
  return adapter && p?.paper_scale != null && measuredByStudy(p);
}

/** What a study of preset `p` at `scale` runs, in words (shown before Start): trials, length,
 * checkpoints and their AIS runs. */
export function extentText(p: PresetEntry, scale: Scale): string {
  const e = presetExtent(p, scale);
  const checkpoints = Math.floor(e.iters / Math.max(1, e.every)) + 1 + (e.iters % Math.max(1, e.every) === 0 ? 0 : 1);
  const n = (x: number) => x.toLocaleString('en');
  const ais = e.ais
    ? `, AIS of ${n(e.ais.particles)} particles × ${n(e.ais.betas)} β at each of its ${n(checkpoints)} checkpoints`
    : p.eval_data
      ? `, the exact log-likelihood of the ${p.eval_data} digits (2^${p.hidden} states enumerated) at each of its ${n(checkpoints)} checkpoints`
      : `, measured at ${n(checkpoints)} checkpoints`;
  return `${n(e.trials)} trial${e.trials === 1 ? '' : 's'} per lane of ${n(e.iters)} updates${ais} (${n(e.trials * p.lanes.length * checkpoints)} measurements in all)`;
}

/**
 * The state of preset `p` at its learning rate `rateIndex`, keeping the page's `seed`: the
 * shared options and every lane option from the core's configuration of the preset's lanes,
 * lane i with id i (the preset's stream index, as in `rbm reproduce`), the equal-compute axis
 * and the preset's length as the end point. At `scale` 'paper' (where the catalog has one),
 * the paper's trials, length and checkpoints (`rbm reproduce NAME --scale paper`).
 */
export function presetPlan(p: PresetEntry, catalog: Catalog, rateIndex: number, seed: OptionValue, scale: Scale = 'page'): PresetPlan {
  const e = presetExtent(p, scale);
  const paper = scale === 'paper' && p.paper_scale !== null;
  const r = Math.min(Math.max(0, Math.floor(rateIndex)), p.rates.length - 1);
  const lr = p.rates[r];
  const lanes: LaneState[] = [];
  const missing: PresetPlan['missing'] = [];
  p.lanes.forEach((l, index) => {
    if (!catalog.algorithms.some((a) => a.name === l.algo)) {
      missing.push({ label: l.label, algo: l.algo });
      return;
    }
    const options: Record<string, OptionValue> = {};
    for (const key of laneOptionKeys(catalog, l.algo)) options[key] = key === 'lr' ? lr : configValue(catalog, l.config, key);
    // η decays to 0 at the end of the run: at the paper's length, its end (as lane_config_for).
    if (paper && p.decay && typeof options.lr_decay_iters === 'number') options.lr_decay_iters = Math.max(1, e.iters);
    // A preset measured by AIS brackets every lane at its own schedule ("AIS every N updates").
    lanes.push({ id: index, algo: l.algo, label: l.label, options, ...(e.ais ? { aisEvery: e.every } : {}) });
  });
  const first = p.lanes[0]?.config ?? {};
  // The page runs trials where each lane computes its own exact curve (the small sets).
  const small = catalog.data_sets.find((d) => d.name === p.data)?.patterns.length ?? 0;
  const shared: Record<string, OptionValue> = {};
  for (const spec of sharedOptions(catalog)) shared[spec.key] = spec.key === 'seed' ? seed : configValue(catalog, first, spec.key);
  if (paper && 'every' in shared) shared.every = e.every;
  return {
    // Equal compute: the x axis counts Gibbs sweeps, so a lane that spends more per update shows it.
    state: {
      data: p.data,
      shared,
      lanes,
      axis: 'sweeps',
      stop: e.iters,
      stopUnit: 'updates',
      preset: p.name,
      rate: r,
      // On MNIST the page's own length runs live lanes; the paper's scale is a study.
      trials: small > 0 || paper ? e.trials : null,
      wide: false,
      views: viewState(catalog),
      compute: 'auto',
      scale: paper ? 'paper' : 'page',
    },
    missing,
    lr,
  };
}

/** The text of the learning-rate choice, e.g. "η = 0.01 (the paper's text)". */
export function rateLabel(p: PresetEntry, i: number): string {
  const note = p.rate_notes[i];
  return `η = ${p.rates[i]}${note ? ` (${note})` : ''}`;
}

/** What the page's curve is, against what the paper (and `rbm reproduce`) measures. */
function measureNote(p: PresetEntry, studies: boolean): string {
  if (!p.eval_data) return '';
  if (p.ais) {
    return (
      ` The paper measures the ${p.eval_data} log-likelihood by AIS, and so does the page: no exact value exists for ${p.hidden} hidden units, so the chart plots each lane's AIS estimate of the ${p.eval_data} digits (thresholded at 0.5, as \`rbm reproduce\` evaluates them; \`rbm ais --protocol paper:SEED\` evaluates one fixed stochastic binarisation instead, and says so on its lines) every ${p.every.toLocaleString('en')} updates ` +
      `(points, with bars from RAISE's lower to AIS's upper end; ${p.ais.particles} particles × ${p.ais.betas.toLocaleString('en')} β, as \`rbm reproduce\` runs at every checkpoint), and the claims are checked on them.`
    );
  }
  if (studies)
    return (
      ` A study's trials are measured as \`rbm reproduce\` measures them: the exact log-likelihood of the ${p.eval_data} digits (thresholded at 0.5) at each checkpoint, ` +
      `its log Z summed over 2^${p.hidden} states in the trial's worker (on its GPU where the trials run there, f32 with compensated sums; else on the CPU in f64) and the digits' free energies in f64.`
    );
  return (
    ` The curves are the exact log-likelihood of the training digits (thresholded at 0.5), each point summed over 2^${p.hidden} states by the page's evaluation workers; ` +
    `the paper, and \`rbm reproduce\`, report the ${p.eval_data} digits'.`
  );
}

/** What the page's chart plots for preset `p` (its title's measure, as the page runs it). */
export function plotsWhat(p: PresetEntry): string {
  if (p.ais)
    return `each lane's AIS estimate of the ${p.eval_data ?? p.data} log-likelihood every ${p.every.toLocaleString('en')} updates (points with RAISE–AIS bars)`;
  if (p.eval_data && p.eval_data !== p.data) return "each lane's exact log-likelihood of the training digits (the paper reports the test digits')";
  return "each lane's exact average log-likelihood";
}

/** The preset's name in the menu: the core's title, saying what the page's chart plots where
 * that differs from the paper's measure (pcd-mnist-25: training digits here, test digits in the
 * paper and in `rbm reproduce`). */
export function presetTitle(p: PresetEntry): string {
  if (p.ais || !p.eval_data || p.eval_data === p.data) return p.title;
  return p.title.replace(/exact test log-likelihood/, 'exact log-likelihood of the training digits');
}

/**
 * The preset's one-line description: the paper, the set-up and how the page runs it. What the
 * paper found is the claims list under the chart (checked on the trials); a preset without
 * claims keeps its "what to look for" text here.
 */
export function presetDescription(p: PresetEntry, studies: boolean): string {
  const chains = p.chains === null ? (p.batch === null ? 'one chain per training row' : 'one chain per batch row') : `${p.chains.toLocaleString('en')} chains`;
  const batch = p.batch === null ? 'full batch' : `batch ${p.batch}`;
  const decay = p.decay ? ', η decaying linearly to 0' : '';
  const trials = `${p.trials} trial${p.trials === 1 ? '' : 's'}`;
  // The preset's trials are the paper's only where it has no paper's scale of its own.
  const byDefault = p.paper_scale ? `the preset's ${trials} by default, the paper's ${p.paper_scale.trials} at its scale` : `the paper's ${trials} by default`;
  const how = studies
    ? `each lane runs the trials set below (${byDefault}), seeded as \`rbm reproduce ${p.name}\` seeds them`
    : `\`rbm reproduce ${p.name}\` runs ${trials}; this is one, with the page's seed`;
  const expect = p.claims.length ? '' : ` ${p.expect}`;
  return `${p.paper}: ${p.hidden} hidden units, ${chains}, ${batch}${decay}, ${p.iters.toLocaleString('en')} updates (${how}).${expect}${measureNote(p, studies)}`;
}

/** The note for lanes the loaded core cannot run. */
export function missingNote(missing: PresetPlan['missing']): string {
  if (!missing.length) return '';
  const names = missing.map((m) => `${m.label} (algorithm '${m.algo}')`).join(', ');
  return missing.length === 1
    ? `${names} is not available in this build of the core, so its lane is left out; it appears here once the core registers the algorithm.`
    : `${names} are not available in this build of the core, so their lanes are left out; they appear here once the core registers the algorithms.`;
}

/** The note under the scale choice (before Start): what the study at `scale` runs, and where.
 * The GPU's time is not estimated before Start (the core has no model of a browser's GPU):
 * the study's time left shows from its trials' measured pace. */
export function scaleNote(p: PresetEntry, scale: Scale, gpu: string | null): string {
  const what = extentText(p, scale);
  const batched = presetExtent(p, scale).ais
    ? " The trials' checkpoint models are annealed together in batches by one study AIS worker on the GPU (each model's numbers the same as if it ran alone)."
    : '';
  const where = gpu
    ? ` On the GPU (WebGPU, f32): ${gpu}; its numbers are its own (f32, the GPU's random streams), not the CPU's.${batched} Its duration is measured once its first checkpoints are in (time left beside the trials).`
    : ' On the CPU (wasm).';
  return `${scale === 'paper' ? "The paper's scale" : "The page's scale"}: ${what}, as \`rbm reproduce ${p.name}${scale === 'paper' ? ' --scale paper' : ''}\` runs it.${where}`;
}
