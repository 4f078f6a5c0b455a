// The papers' experiments (the core's `presets()`, the table `rbm reproduce` runs) turned into
// the page's settings and lanes. Pure logic, no DOM: every option comes from the core's
// `Preset::lane_config`, and an algorithm the loaded core does not register is left out with a
// note (it appears by itself once the core registers it).
import { laneOptionKeys, type Settings } from './state';
import type { Catalog, CoreConfig, PresetInfo } from './types';

/** Keys of a lane configuration the page sets from its shared settings, not per lane. */
export const SHARED_KEYS = ['algo', 'hidden', 'seed', 'init', 'every', 'lane', 'lr'] as const;

/** A lane the preset asks for, ready for `newLane`. */
export interface PlannedLane {
  /** The preset's lane index: also the lane's id and the core's stream index, as in `rbm reproduce`. */
  index: number;
  algo: string;
  /** The paper's name for it (e.g. "S-DCP d=3 K'=4"). */
  label: string;
  /** The text of each option input. */
  inputs: Record<string, string>;
}

/** What the page becomes when a preset is chosen. */
export interface PresetPlan {
  settings: Settings;
  lanes: PlannedLane[];
  /** Lanes whose algorithm the loaded core does not register. */
  missing: { label: string; algo: string }[];
  lr: number;
}

const text = (v: CoreConfig[string] | undefined): string => (v === null || v === undefined ? '' : String(v));

/**
 * The settings and lanes of preset `p` at its learning rate `rateIndex`, keeping the page's
 * `seed`. Each lane's inputs are the algorithm's options (as the lane picker shows them) filled
 * from the core's configuration, plus any other key the preset sets away from the core's
 * default, so `laneConfig` gives back exactly the core's configuration.
 */
export function presetPlan(p: PresetInfo, catalog: Catalog, rateIndex: number, seed: number): PresetPlan {
  const r = Math.min(Math.max(0, Math.floor(rateIndex)), p.rates.length - 1);
  const lr = p.rates[r];
  const lanes: PlannedLane[] = [];
  const missing: PresetPlan['missing'] = [];
  p.lanes.forEach((l, index) => {
    const info = catalog.algorithms.find((a) => a.name === l.algo);
    if (!info) {
      missing.push({ label: l.label, algo: l.algo });
      return;
    }
    const inputs: Record<string, string> = {};
    for (const key of laneOptionKeys(info)) inputs[key] = key === 'lr' ? String(lr) : text(l.config[key]);
    for (const [key, value] of Object.entries(l.config)) {
      if ((SHARED_KEYS as readonly string[]).includes(key) || key in inputs) continue;
      if (text(value) !== text(catalog.defaults[key])) inputs[key] = text(value);
    }
    lanes.push({ index, algo: l.algo, label: l.label, inputs });
  });
  return {
    settings: { dataset: p.data, hidden: p.hidden, seed, init: p.init, every: p.every, stop: p.iters },
    lanes,
    missing,
    lr,
  };
}

/** The text of the learning-rate choice, e.g. "η = 0.01 (the paper's text)". */
export function rateLabel(p: PresetInfo, i: number): string {
  const note = p.rate_notes[i];
  return `η = ${p.rates[i]}${note ? ` (${note})` : ''}`;
}

/** The preset's one-line description: the paper, the set-up and what to look for. */
export function presetDescription(p: PresetInfo): string {
  const chains = p.chains === null ? 'one chain per training row' : `${p.chains.toLocaleString('en')} chains`;
  const batch = p.batch === null ? 'full batch' : `batch ${p.batch}`;
  return (
    `${p.paper}: ${p.hidden} hidden units, ${chains}, ${batch}, ${p.iters.toLocaleString('en')} updates ` +
    `(\`rbm reproduce ${p.name}\` runs ${p.trials} trials; this is one, with the page's seed). ${p.expect}`
  );
}

/** The note for lanes the loaded core cannot run. */
export function missingNote(missing: PresetPlan['missing']): string {
  if (!missing.length) return '';
  const names = missing.map((m) => `${m.label} (algorithm '${m.algo}')`).join(', ');
  return missing.length === 1
    ? `${names} is not available in this build of the core, so its lane is left out; it appears here once the core registers the algorithm.`
    : `${names} are not available in this build of the core, so their lanes are left out; they appear here once the core registers the algorithms.`;
}
