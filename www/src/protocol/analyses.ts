// The papers' exact views of a lane's current model, DOM-free: what the page asks the lane's
// worker for and what it hears back. Two kinds, each run in the lane's own worker between its
// training slices (analysisJobs.ts), a few steps per slice, cancellable:
// - `chain`: the exact law p_k = p_0 Tᵏ of a Gibbs chain after k = 0..K sweeps and its distances
//   to the model and to the data (`rbm chain`, src/eval/chain.rs; docs/algorithms.md §7);
// - `grad`: the lane's algorithm's gradient estimate over repetitions against the exact gradient
//   (`rbm grad`, src/diagnostics/grad.rs).
import type { ChainResult, GradResult } from '../generated/core';

export type AnalysisKind = 'chain' | 'grad';

/** What is asked for. Both use the data set of the lane the worker holds (the chain's start and
 * the data expectation of the exact gradient): the worker knows it, the page may not (a
 * configuration on another data set may have been refused). */
export type AnalysisRequest = { kind: 'chain'; start: 'data' | 'uniform'; kMax: number } | { kind: 'grad'; reps: number; seed: number };

export type AnalysisState = 'running' | 'done' | 'cancelled' | 'failed';

/** The worker's report on one analysis (progress, then its result). */
export interface AnalysisReport {
  kind: AnalysisKind;
  state: AnalysisState;
  /** Steps (sweeps or repetitions) done, of `total`. */
  done: number;
  total: number;
  /** The lane's update at which the model was taken (−1 until the worker says). */
  iter: number;
  /** Milliseconds the worker spent on it. */
  ms: number;
  error: string | null;
  chain: ChainResult | null;
  grad: GradResult | null;
}

/** The report of an analysis just asked for. */
export function startingAnalysis(kind: AnalysisKind): AnalysisReport {
  return { kind, state: 'running', done: 0, total: 0, iter: -1, ms: 0, error: null, chain: null, grad: null };
}

/** The chain's start and sweeps when the page has no value (the schema's defaults of
 * `chain_start` and `chain_k`, src/schema/views.rs). */
export const DEFAULT_CHAIN = { start: 'data' as const, kMax: 50 };

/** The gradient panel's repetitions and interval when the page has no value (the schema's
 * `grad_reps`, `grad_every`: 50 repetitions, on request only). Seed 1: an estimate is
 * `rbm grad --seed 1`'s at the same model. */
export const DEFAULT_GRAD = { reps: 50, every: 0, seed: 1 };

/** "sweeps 12 / 50 (24 %)". */
export function analysisProgress(r: AnalysisReport): string {
  const what = r.kind === 'chain' ? 'sweeps' : 'repetitions';
  const pct = r.total > 0 ? Math.floor((100 * r.done) / r.total) : 0;
  return `${what} ${r.done.toLocaleString('en')} / ${r.total.toLocaleString('en')} (${pct} %)`;
}

/** One point of the gradient panel's history: a finished estimate at update `iter`. */
export interface GradPoint {
  iter: number;
  bias: number;
  cosine: number | null;
  stdErr: number;
  /** The bias norm over the standard-error norm: above ~2 the estimate is visibly biased. */
  ratio: number;
}

/** The history point of a finished estimate (null without an exact gradient). */
export function gradPoint(g: GradResult): GradPoint | null {
  const s = g.summary;
  if (s.bias_norm === null) return null;
  return {
    iter: g.iter,
    bias: s.bias_norm,
    cosine: s.cosine,
    stdErr: s.std_err_norm,
    ratio: s.std_err_norm > 0 ? s.bias_norm / s.std_err_norm : Number.POSITIVE_INFINITY,
  };
}

/** Adds a point to a history sorted by update (a point at the same update replaces it). */
export function addGradPoint(history: GradPoint[], p: GradPoint): GradPoint[] {
  const out = history.filter((q) => q.iter !== p.iter);
  out.push(p);
  out.sort((a, b) => a.iter - b.iter);
  return out;
}

/** Whether the interval asks for a new estimate at update `iter` (after the last one asked at
 * update `last`, −∞ for none). */
export function gradDue(every: number, iter: number, last: number): boolean {
  return every > 0 && iter > 0 && iter - last >= every;
}
