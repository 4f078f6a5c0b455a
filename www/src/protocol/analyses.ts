// The analysis channel: the one way a lane panel asks its lane's worker for data about the
// lane's current model. Each kind is one entry of `AnalysisTypes` below (its request's fields
// and its result); the page asks with `LaneHandle.analyze` and keeps the latest report of each
// kind (app/lane.ts); the worker runs the kind's handler (workers/analyses.ts) between its
// training slices, a few steps per slice, cancellable, and reports progress then the result.
// Nothing else names a kind: a new one is its entry here, its handler and its panel.
import type { ChainResult, GradResult, MixingResult } from '../generated/core';

/** Every kind: what a request carries besides its kind, and what the worker answers. Both use
 * the data set of the lane the worker holds (the worker knows it, the page may not: a
 * configuration on another data set may have been refused). */
export interface AnalysisTypes {
  /** The exact law p_k = p_0 Tᵏ of a Gibbs chain after k = 0..kMax sweeps and its distances to
   * the model and to the data (`rbm chain`, src/eval/chain.rs; docs/algorithms.md §7). */
  chain: { request: { start: 'data' | 'uniform'; kMax: number }; result: ChainResult };
  /** The lane's algorithm's gradient estimate over repetitions against the exact gradient
   * (`rbm grad`, src/diagnostics/grad.rs). */
  grad: { request: { reps: number; seed: number }; result: GradResult };
  /** ‖W[:,j]‖, the Euclidean norm of each hidden unit's weights, at the current update: the
   * first `units` units, and the mean and largest over all of them (panels/weightNorms.ts). */
  hiddenNorms: { request: { units: number }; result: HiddenNorms };
  /** The exact mixing diagnostics (`rbm mixing`, src/diagnostics/spectrum.rs): λ₂ of the
   * visible Gibbs chain and its relaxation time, the singular values of W, the modes of p(v);
   * models with m + n ≤ 24. */
  mixing: { request: Record<never, never>; result: MixingResult };
}

/** The result of `hiddenNorms`. */
export interface HiddenNorms {
  /** Hidden units n. */
  n: number;
  /** ‖W[:,j]‖ of units j = 1..min(units, n), in order. */
  norms: number[];
  /** The mean and the largest ‖W[:,j]‖ over all n units. */
  mean: number;
  max: number;
}

export type AnalysisKind = keyof AnalysisTypes;

/** A request of kind `K`. */
export type AnalysisRequestOf<K extends AnalysisKind> = { kind: K } & AnalysisTypes[K]['request'];

/** What is asked for: a request of any kind. */
export type AnalysisRequest = { [K in AnalysisKind]: AnalysisRequestOf<K> }[AnalysisKind];

/** The result of kind `K`. */
export type AnalysisResult<K extends AnalysisKind> = AnalysisTypes[K]['result'];

export type AnalysisState = 'running' | 'done' | 'cancelled' | 'failed';

/** The worker's report on one analysis (progress, then its result). */
export interface AnalysisReport<K extends AnalysisKind = AnalysisKind> {
  kind: K;
  state: AnalysisState;
  /** Steps (e.g. sweeps or repetitions) done, of `total`. */
  done: number;
  total: number;
  /** The lane's update at which the model was taken (−1 until the worker says). */
  iter: number;
  /** Milliseconds the worker spent on it. */
  ms: number;
  error: string | null;
  /** The result, once `done` (null before, and when cancelled or failed). */
  result: AnalysisResult<K> | null;
}

/** The latest report of each kind, as a lane keeps them. */
export type AnalysisReports = { [K in AnalysisKind]?: AnalysisReport<K> };

/** The report of an analysis just asked for. */
export function startingAnalysis<K extends AnalysisKind>(kind: K): AnalysisReport<K> {
  return { kind, state: 'running', done: 0, total: 0, iter: -1, ms: 0, error: null, result: null };
}

/** "sweeps 12 / 50 (24 %)", with the kind's steps in words (`unit`). */
export function analysisProgress(r: AnalysisReport, unit: string): string {
  const pct = r.total > 0 ? Math.floor((100 * r.done) / r.total) : 0;
  return `${unit} ${r.done.toLocaleString('en')} / ${r.total.toLocaleString('en')} (${pct} %)`;
}
