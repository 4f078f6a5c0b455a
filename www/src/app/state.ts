// The page's state — what the URL holds — and the lane configurations it gives. No DOM here.
// Options are the core's schema's (schema.ts); only the first screen's choices are written here.

import type { Catalog, DataSetEntry } from '../generated/core';
import type { LaneConfig } from '../protocol/messages';
import { defaultValue, laneOptionKeys, type OptionValue, optionSpec, sharedOptions, viewOptions } from '../protocol/schema';
import type { Axis } from './chartData';
import { type StopUnit, updatesPerEpoch } from './progress';

/** One lane: its algorithm, the paper's label (when a preset made it) and its options. */
export interface LaneState {
  /** Stable id; also the core's `lane` index, so lanes of one seed draw independent samples. */
  id: number;
  algo: string;
  label: string | null;
  /** Every per-lane option the algorithm reads (schema.laneOptionKeys), by key. */
  options: Record<string, OptionValue>;
  /** "AIS every N updates" (lane.ts): AIS/RAISE brackets of the log-likelihood over training,
   * for a lane without an exact curve (absent: none). */
  aisEvery?: number | null;
}

/** Everything a page shows, and so everything its URL restores. */
export interface PageState {
  /** The built-in data set. */
  data: string;
  /** Every shared option of the schema (hidden, init, seed, every, …), by key. */
  shared: Record<string, OptionValue>;
  lanes: LaneState[];
  axis: Axis;
  /** Every lane stops here (a preset's length), in `stopUnit`; null: runs on. */
  stop: number | null;
  /** The unit of `stop`: updates, or epochs (each lane's end in updates follows its batch). */
  stopUnit: StopUnit;
  /** The paper's experiment the page was set up as (null: none). */
  preset: string | null;
  /** The index of the preset's learning rate (0 without a preset). */
  rate: number;
  /** Trials per lane (a study on the small sets: each lane runs this many seeded trials and
   * the chart draws their median and bands); null: each lane runs once, live. */
  trials: number | null;
  /** Whether the chart also draws the q2.5–q97.5 band of a study. */
  wide: boolean;
  /** Every option of the lane panels' exact views (scope `view`: chain_k, grad_every, …). */
  views: Record<string, OptionValue>;
  /** Where live lanes compute: the CPU (the wasm core) or the browser's GPU (WebGPU), where it
   * has one (else the lanes run on the CPU and say why); `auto`: the GPU for models of 784 or
   * more visible units (MNIST) where the browser has a WebGPU adapter, else the CPU. */
  compute: Compute;
  /** The preset's scale: the page's own (shortened where the catalog says so) or the paper's
   * trials, length and AIS (`rbm reproduce NAME --scale paper`), offered where a WebGPU
   * adapter is. */
  scale: Scale;
}

/** A preset's scale: the page's defaults or the paper's (the core's `Scale`). */
export type Scale = 'page' | 'paper';

/** Where live lanes compute. */
export type Compute = 'auto' | 'cpu' | 'gpu';

/** Visible units from which `auto` computes on the GPU (MNIST's 28×28). */
export const GPU_VISIBLE = 784;

/** Where lanes of `visible` units compute under `compute`, with a WebGPU adapter or not. */
export function computeOn(compute: Compute, visible: number, adapter: boolean): 'cpu' | 'gpu' {
  if (compute !== 'auto') return compute;
  return adapter && visible >= GPU_VISIBLE ? 'gpu' : 'cpu';
}

/** Most trials per lane the page runs. */
export const MAX_TRIALS = 200;

/** Largest "stop at" the page accepts (in either unit). */
export const MAX_STOP = 1_000_000_000;

/** The first screen: CD-1 and PCD on Bars & Stripes 4×4 at the UCD paper's code set-up. */
export const FIRST_SCREEN = {
  data: 'bas4',
  shared: { hidden: 16, init: 'ucd', seed: 1, every: 100 } as Record<string, OptionValue>,
  algos: ['cd', 'pcd'],
};

/** Per-lane values a new lane takes where the core's defaults differ (if the algorithm reads them). */
export const NEW_LANE_OPTIONS: Record<string, OptionValue> = { lr: 0.1, k: 1, chains: 1000 };

/** The two kinds of data sets, which want different settings: the small built-in sets
 * (exact likelihood, a model distribution over their distinct patterns) and images (MNIST's
 * splits, the user's IDX files: no distinct patterns listed). */
export type DataFamily = 'small' | 'images';

export function dataFamily(ds: DataSetEntry): DataFamily {
  return ds.patterns.length > 0 ? 'small' : 'images';
}

/** Why the page runs no trials on data set `ds` (null: it does, on the small sets, and on
 * MNIST for a preset measured on its evaluation set: `measured`). A trial runs in a trial
 * worker that computes its own exact curve; on MNIST that curve needs the evaluation workers'
 * 2^hidden-state sums at every point, which the trial workers do not have, so the field is
 * refused there rather than accepted and ignored (issue 27) — except where the study measures
 * each checkpoint in the trial's worker (AIS, or an exact log Z enumerated step by step), as
 * `rbm reproduce` does (issue 30). */
export function trialsRefusal(ds: DataSetEntry | undefined, measured = false): string | null {
  // An MNIST preset (sdcp-mnist, pcd-mnist-25): the trial measures each checkpoint itself.
  if (!ds || dataFamily(ds) === 'small' || measured) return null;
  return `trials run on the small data sets only (each trial computes its own exact curve, which ${ds.name} is too large for in a trial worker): the page runs one live run per lane here; \`rbm reproduce\` runs a paper's trials on MNIST`;
}

/** What choosing a data set of a family sets, when the page comes from the other family. */
export interface DataDefaults {
  /** Shared options (of the data set: e.g. evaluate once per epoch). */
  shared(ds: DataSetEntry): Record<string, OptionValue>;
  /** Per-lane options (of the data set: a batch fits its rows), for the keys a lane's algorithm reads. */
  lane(ds: DataSetEntry): Record<string, OptionValue>;
  /** Whether η decays linearly to 0 at each lane's end point (`lr_decay_iters`); else constant. */
  decayToEnd: boolean;
  stop: number | null;
  stopUnit: StopUnit;
}

/** Mini-batch rows of the MNIST-scale set-up. */
export const IMAGES_BATCH = 100;

/** The batch of an image set: IMAGES_BATCH rows, or all of them in a smaller file. */
export function imagesBatch(ds: DataSetEntry): number {
  return Math.max(1, Math.min(IMAGES_BATCH, ds.rows));
}

/**
 * The per-data-set defaults, in one place. Switching between families applies the other
 * family's row (within a family, settings stay; "evaluate every" follows the epoch's length).
 */
export const DATA_DEFAULTS: Record<DataFamily, DataDefaults> = {
  // The first screen: the UCD paper's code (full batch, 1000 PCD chains, constant η 0.1).
  small: {
    shared: () => ({ hidden: 16, init: 'ucd', every: 100 }),
    lane: () => ({ lr: 0.1, chains: 1000, batch: null }),
    decayToEnd: false,
    stop: null,
    stopUnit: 'updates',
  },
  // MNIST scale (Tieleman 2008 §4; the S-DCP paper): 500 hidden units, W ~ N(0, 0.01²) with
  // base-rate visible biases, mini-batches of 100 rows (fewer in a smaller file), PCD's chains
  // = the batch rows (empty),
  // η = 0.05 decaying linearly to 0 at the end point, 10 epochs, evaluated once per epoch
  // (80 updates on the 8 000 training digits).
  images: {
    shared: (ds) => ({ hidden: 500, init: 'sdcp', every: updatesPerEpoch(ds.rows, imagesBatch(ds)) }),
    lane: (ds) => ({ lr: 0.05, chains: null, batch: imagesBatch(ds) }),
    decayToEnd: true,
    stop: 10,
    stopUnit: 'epochs',
  },
};

/** A new lane of `algo`: the schema's defaults, then `over` (keys the algorithm reads only). */
export function newLaneState(
  catalog: Catalog,
  id: number,
  algo: string,
  over: Record<string, OptionValue> = NEW_LANE_OPTIONS,
  label: string | null = null,
): LaneState {
  const options: Record<string, OptionValue> = {};
  for (const key of laneOptionKeys(catalog, algo)) {
    const spec = optionSpec(catalog, key);
    options[key] = key in over ? over[key] : spec ? defaultValue(spec) : null;
  }
  return { id, algo, label, options };
}

/** Every shared option at its schema default, then `over`. */
export function sharedState(catalog: Catalog, over: Record<string, OptionValue>): Record<string, OptionValue> {
  const shared: Record<string, OptionValue> = {};
  for (const spec of sharedOptions(catalog)) shared[spec.key] = spec.key in over ? over[spec.key] : defaultValue(spec);
  return shared;
}

/** Every view option at its schema default, then `over`. */
export function viewState(catalog: Catalog, over: Record<string, OptionValue> = {}): Record<string, OptionValue> {
  const views: Record<string, OptionValue> = {};
  for (const spec of viewOptions(catalog)) views[spec.key] = spec.key in over ? over[spec.key] : defaultValue(spec);
  return views;
}

/** The first screen's state (algorithms the core does not register are left out). */
export function firstScreen(catalog: Catalog): PageState {
  const algos = FIRST_SCREEN.algos.filter((a) => catalog.algorithms.some((x) => x.name === a));
  return {
    data: catalog.data_sets.some((d) => d.name === FIRST_SCREEN.data) ? FIRST_SCREEN.data : (catalog.data_sets[0]?.name ?? ''),
    shared: sharedState(catalog, FIRST_SCREEN.shared),
    lanes: algos.map((algo, id) => newLaneState(catalog, id, algo)),
    axis: 'iter',
    stop: null,
    stopUnit: 'updates',
    preset: null,
    rate: 0,
    trials: null,
    wide: false,
    views: viewState(catalog),
    compute: 'auto',
    scale: 'page',
  };
}

/** The core's configuration of a lane: shared and lane options (derived ones left out). */
export function laneConfig(shared: Record<string, OptionValue>, lane: LaneState): LaneConfig {
  const config: LaneConfig = { algo: lane.algo, lane: lane.id };
  for (const [key, v] of [...Object.entries(shared), ...Object.entries(lane.options)]) if (v !== null) config[key] = v;
  return config;
}

/** A deep copy of a state. */
export function cloneState(s: PageState): PageState {
  return { ...s, shared: { ...s.shared }, views: { ...s.views }, lanes: s.lanes.map((l) => ({ ...l, options: { ...l.options } })) };
}
