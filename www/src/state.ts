// The page's state — what the URL holds — and the lane configurations it gives. No DOM here.
// Options are the core's schema's (schema.ts); only the first screen's choices are written here.
import type { Axis } from './chartData';
import type { Catalog } from './generated/core';
import type { LaneConfig } from './protocol';
import { defaultValue, laneOptionKeys, type OptionValue, optionSpec, sharedOptions } from './schema';

/** One lane: its algorithm, the paper's label (when a preset made it) and its options. */
export interface LaneState {
  /** Stable id; also the core's `lane` index, so lanes of one seed draw independent samples. */
  id: number;
  algo: string;
  label: string | null;
  /** Every per-lane option the algorithm reads (schema.laneOptionKeys), by key. */
  options: Record<string, OptionValue>;
}

/** Everything a page shows, and so everything its URL restores. */
export interface PageState {
  /** The built-in data set. */
  data: string;
  /** Every shared option of the schema (hidden, init, seed, every, …), by key. */
  shared: Record<string, OptionValue>;
  lanes: LaneState[];
  axis: Axis;
  /** Every lane stops at this update (a preset's length); null: runs on. */
  stop: number | null;
  /** The paper's experiment the page was set up as (null: none). */
  preset: string | null;
  /** The index of the preset's learning rate (0 without a preset). */
  rate: number;
}

/** Largest "stop at" the page accepts. */
export const MAX_STOP = 1_000_000_000;

/** The first screen: CD-1 and PCD on Bars & Stripes 4×4 at the UCD paper's code set-up. */
export const FIRST_SCREEN = {
  data: 'bas4',
  shared: { hidden: 16, init: 'ucd', seed: 1, every: 100 } as Record<string, OptionValue>,
  algos: ['cd', 'pcd'],
};

/** Per-lane values a new lane takes where the core's defaults differ (if the algorithm reads them). */
export const NEW_LANE_OPTIONS: Record<string, OptionValue> = { lr: 0.1, k: 1, chains: 1000 };

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

/** The first screen's state (algorithms the core does not register are left out). */
export function firstScreen(catalog: Catalog): PageState {
  const algos = FIRST_SCREEN.algos.filter((a) => catalog.algorithms.some((x) => x.name === a));
  return {
    data: catalog.data_sets.some((d) => d.name === FIRST_SCREEN.data) ? FIRST_SCREEN.data : (catalog.data_sets[0]?.name ?? ''),
    shared: sharedState(catalog, FIRST_SCREEN.shared),
    lanes: algos.map((algo, id) => newLaneState(catalog, id, algo)),
    axis: 'iter',
    stop: null,
    preset: null,
    rate: 0,
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
  return { ...s, shared: { ...s.shared }, lanes: s.lanes.map((l) => ({ ...l, options: { ...l.options } })) };
}
