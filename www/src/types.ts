// Shapes of the values the wasm core hands over (src/wasm.rs), as the page uses them.

/** A registered training algorithm (`algorithms()`). */
export interface AlgoInfo {
  name: string;
  title: string;
  paper: string;
  /** The `LaneConfig` keys this algorithm reads (k, chains, d, kprime, max_steps, …). */
  options: string[];
}

/** A built-in data set (`dataSets()`). */
export interface DataSetInfo {
  name: string;
  description: string;
  rows: number;
  m: number;
  shape: [number, number] | null;
  bound: number | null;
  /** Distinct patterns, each `m` 0/1 values, in order of first appearance. */
  patterns: number[][];
  counts: number[];
}

/** The lane configuration object (`LaneConfig`'s keys); values the core validates. */
export type CoreConfig = Record<string, string | number | null>;

/** A lane of a paper's experiment (`presets()[…].lanes`). */
export interface PresetLaneInfo {
  /** The paper's name for it (e.g. "S-DCP d=3 K'=4"). */
  label: string;
  /** The algorithm's name; the loaded core may not register it. */
  algo: string;
  /** The core's full configuration (`Preset::lane_config` at the first rate, seed 1). */
  config: CoreConfig;
}

/** A paper's experiment (`presets()`), the table `rbm reproduce` runs. */
export interface PresetInfo {
  name: string;
  title: string;
  paper: string;
  data: string;
  hidden: number;
  init: string;
  chains: number | null;
  batch: number | null;
  rates: number[];
  /** Where each rate comes from (the paper's text, its code, …). */
  rate_notes: string[];
  /** What the paper reports: what to look for in the curves. */
  expect: string;
  iters: number;
  every: number;
  trials: number;
  lanes: PresetLaneInfo[];
}

/** Everything the page learns from the core once, when a worker is ready. */
export interface Catalog {
  algorithms: AlgoInfo[];
  dataSets: DataSetInfo[];
  defaults: CoreConfig;
  presets: PresetInfo[];
}

/** One evaluation point (`Record`). */
export interface CoreRecord {
  iter: number;
  sweeps: number;
  vh_steps: number;
  atll: number | null;
  log_z: number | null;
  stats: Record<string, number>;
}

/** What `WasmLane.run` returns. */
export interface RunResult {
  records: CoreRecord[];
  iter: number;
  seed: string;
  error: string | null;
  failed: boolean;
}

/** What `WasmLane.distribution` returns. */
export interface Distribution {
  model: number[];
  data: number[];
  off: number;
  log_z: number;
}
