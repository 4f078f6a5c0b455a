// The worker's handlers of the analysis channel (protocol/analyses.ts): one per kind, each
// starting its computation on the lane's current model. The jobs (analysisJobs.ts) step it
// between the lane's training slices, report its progress and post its result; a handler only
// says how to compute. Runs in the lane's worker, never on the page's thread.

import type { AisProgress, ChainResult, GradResult, MixingResult } from '../generated/core';
import type { AnalysisKind, AnalysisRequestOf, AnalysisResult, HiddenNorms } from '../protocol/analyses';

/** A stepped computation (the core's `WasmChain`, `WasmGrad`, or `finished`). */
export interface CoreStepped<R> {
  /** Up to `maxSteps` more steps (at least one). Throws the core's ErrorInfo. */
  step(maxSteps: number): AisProgress;
  /** The result so far (`WasmChain`) or once done (`WasmGrad`). */
  result(): R;
  free(): void;
}

/** What the handlers may use of the lane (`WasmLane`). Its methods throw the core's ErrorInfo. */
export interface AnalysisLane {
  chain(dataset: string, start: string, kMax: number): CoreStepped<ChainResult>;
  grad(dataset: string, reps: number, seed: number): CoreStepped<GradResult>;
  /** The exact mixing diagnostics of the current model, a few Lanczos steps per call. */
  mixing(): CoreStepped<MixingResult>;
  /** A copy of the current weights W, m×n row-major (`w[i·n + j]`: visible i, hidden j). */
  weights(): Float32Array;
  /** Hidden units n. */
  readonly hidden: number;
  readonly iter: number;
}

/** A computation done at once (one step): for results cheap enough to compute on the spot. */
export function finished<R>(result: R): CoreStepped<R> {
  return {
    step: () => ({ done: true, doneSteps: 1, totalSteps: 1 }),
    result: () => result,
    free: () => undefined,
  };
}

/** ‖W[:,j]‖ of every hidden unit of W (m×n row-major), summed row by row (W's order in
 * memory; 784×500: about a millisecond); the first `units` norms and the mean and largest. */
export function hiddenNorms(w: Float32Array, n: number, units: number): HiddenNorms {
  const sq = new Float64Array(n);
  for (let at = 0; at < w.length; at += n) {
    for (let j = 0; j < n; j++) sq[j] += w[at + j] * w[at + j];
  }
  let sum = 0;
  let max = 0;
  const norms: number[] = [];
  for (let j = 0; j < n; j++) {
    const x = Math.sqrt(sq[j]);
    sum += x;
    max = Math.max(max, x);
    if (j < units) norms.push(x);
  }
  return { n, norms, mean: n > 0 ? sum / n : 0, max };
}

/** Starts the computation of a request of kind `K` on the lane's current model, trained on
 * `dataset`. Throws the core's ErrorInfo to refuse it (the page shows the message). */
export type Handler<K extends AnalysisKind> = (lane: AnalysisLane, dataset: string, request: AnalysisRequestOf<K>) => CoreStepped<AnalysisResult<K>>;

/** One handler per kind. */
export const HANDLERS: { [K in AnalysisKind]: Handler<K> } = {
  chain: (lane, dataset, r) => lane.chain(dataset, r.start, r.kMax),
  grad: (lane, dataset, r) => lane.grad(dataset, r.reps, r.seed),
  hiddenNorms: (lane, _dataset, r) => finished(hiddenNorms(lane.weights(), lane.hidden, r.units)),
  mixing: (lane) => lane.mixing(),
};
