// The AIS / RAISE bracket of a lane's log-likelihood, DOM-free: what the page asks the worker
// for, what it hears back, and how the bracket reads. AIS (Salakhutdinov & Murray 2008) gives
// the upper side on average, RAISE (Burda, Grosse & Salakhutdinov 2015) the lower side; both
// run in the lane's own worker, between its training slices (src/eval/ais.rs in the core).
import type { AisEstimate } from '../generated/core';

/** The settings of one estimate. */
export interface EstimateSettings {
  /** Annealing chains (importance samples) per method. */
  particles: number;
  /** Inverse temperatures, 0 and 1 included. */
  betas: number;
  seed: number;
  /** How the β are spaced (absent: linear; `sm2008`: Salakhutdinov & Murray's 14 501 β). */
  schedule?: 'sm2008';
}

/** The β count of Salakhutdinov & Murray's schedule (the core's `SM2008_BETAS`). */
export const SM2008_BETAS = 14_501;

/** The settings of the β select's choice `value`: a linear count, or Salakhutdinov & Murray's
 * schedule (`sm2008`). */
export function betaChoice(value: string): Pick<EstimateSettings, 'betas' | 'schedule'> {
  return value === 'sm2008' ? { betas: SM2008_BETAS, schedule: 'sm2008' } : { betas: Number(value) };
}

/** How an estimate's β read: "1,000 β", or "14,501 β (Salakhutdinov & Murray's schedule)". */
export function betasText(s: Pick<EstimateSettings, 'betas' | 'schedule'>): string {
  return `${s.betas.toLocaleString('en')} β${s.schedule === 'sm2008' ? " (Salakhutdinov & Murray's schedule)" : ''}`;
}

/** Small enough for about ten seconds on 784×500 in one browser worker (per method). */
export const DEFAULT_ESTIMATE: EstimateSettings = { particles: 100, betas: 1000, seed: 1 };

/** The β choices the panel offers: 10 000 is the papers' setting (about ten times longer). */
export const BETA_CHOICES = [100, 1000, 10_000] as const;

/** The particle choices the panel offers. */
export const PARTICLE_CHOICES = [25, 100, 500] as const;

/** Where an estimate stands: `running` until both methods finish, or stopped. */
export type EstimateState = 'running' | 'done' | 'cancelled' | 'failed';

/** The worker's report on an estimate (progress and, once done, the results). */
export interface EstimateReport {
  state: EstimateState;
  /** The method running now (the last one once done). */
  phase: 'ais' | 'raise';
  /** Annealing steps done and in all, over both methods. */
  done: number;
  total: number;
  /** The lane's update at which the model was taken. */
  iter: number;
  /** The data set evaluated. */
  dataset: string;
  settings: EstimateSettings;
  /** Exact average log-likelihood of the same data under the same model, when the smaller
   * layer is small enough to enumerate (the lane's `exact_bits`); else null. */
  exact: number | null;
  ais: AisEstimate | null;
  raise: AisEstimate | null;
  /** Milliseconds the worker spent on the estimate. */
  ms: number;
  /** Why it failed. */
  error: string | null;
}

/** The report of an estimate just asked for: running, nothing measured yet. */
export function startingReport(dataset: string, settings: EstimateSettings, iter: number): EstimateReport {
  return { state: 'running', phase: 'ais', done: 0, total: 0, iter, dataset, settings, exact: null, ais: null, raise: null, ms: 0, error: null };
}

/** The data set an estimate evaluates for a lane training on `dataset`: MNIST's test split
 * when training on MNIST's training split, else the lane's own data. */
export function estimateDataset(dataset: string): string {
  return dataset === 'mnist' ? 'mnist-test' : dataset;
}

/** Annealing steps of one method: blocks of 25 chains, each `betas − 1` steps. */
export function stepsPerMethod(s: Pick<EstimateSettings, 'particles' | 'betas'>): number {
  return Math.ceil(s.particles / 25) * Math.max(0, s.betas - 1);
}

/** A log-likelihood as the panel shows it (nats, two decimals; "−∞" for an open bar). */
export function formatNats(x: number): string {
  if (x === Number.NEGATIVE_INFINITY) return '−∞';
  if (x === Number.POSITIVE_INFINITY) return '+∞';
  if (!Number.isFinite(x)) return '–';
  return x.toFixed(2).replace('-', '−');
}

/** One method's line: "AIS −87.12 [−87.50, −86.90]". */
export function formatSide(r: AisEstimate): string {
  const name = r.method === 'raise' ? 'RAISE' : 'AIS';
  return `${name} ${formatNats(r.atll)} [${formatNats(r.atll_lo)}, ${formatNats(r.atll_hi)}]`;
}

/** The bracket's widest reading: from RAISE's lower bar to AIS's upper bar. */
export function bracketRange(ais: AisEstimate, raise: AisEstimate): [number, number] {
  return [Math.min(raise.atll_lo, ais.atll_lo), Math.max(ais.atll_hi, raise.atll_hi)];
}

/** Whether `x` lies in the bracket widened by both bars. */
export function inBracket(x: number, ais: AisEstimate, raise: AisEstimate): boolean {
  const [lo, hi] = bracketRange(ais, raise);
  return x >= lo && x <= hi;
}

/** What the bracket says about the exact value, when there is one. */
export function bracketVerdict(exact: number | null, ais: AisEstimate, raise: AisEstimate): string {
  const order =
    raise.atll <= ais.atll
      ? 'RAISE ≤ AIS, as expected'
      : raise.atll_lo <= ais.atll_hi
        ? 'RAISE and AIS agree within their bars'
        : 'RAISE above AIS: anneal longer (more β)';
  if (exact === null) return order;
  const where = inBracket(exact, ais, raise) ? 'inside the bracket' : 'outside the bracket';
  return `exact ${formatNats(exact)}, ${where}; ${order}`;
}

/** "β 1 200 / 19 800 (6 %)". */
export function formatEstimateProgress(done: number, total: number): string {
  const pct = total > 0 ? Math.floor((100 * done) / total) : 0;
  return `β steps ${done.toLocaleString('en')} / ${total.toLocaleString('en')} (${pct} %)`;
}

/** The one-line caveat the panel shows under the bracket. */
export const RAISE_NOTE = 'RAISE bounds the annealing model, not the RBM itself: with short annealing (few β) it can sit above the true value.';
