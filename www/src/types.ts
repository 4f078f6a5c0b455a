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

/** Everything the page learns from the core once, when a worker is ready. */
export interface Catalog {
  algorithms: AlgoInfo[];
  dataSets: DataSetInfo[];
  defaults: CoreConfig;
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
