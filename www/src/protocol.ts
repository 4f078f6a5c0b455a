// The typed message protocol between the page and a lane's worker, and the pure helpers both
// sides share. One worker runs one lane; the page only draws and handles input.
//
// Why not Comlink: a lane is a stream (the worker pushes progress while it trains), not a
// request/response API, and this small union keeps every message visible, typed, transferable
// (weights travel as transferred Float32Arrays) and unit-testable without a worker.
import type { Catalog, CoreConfig, Distribution } from './types';

/** Page → worker. */
export type ToWorker =
  /** Build (or rebuild) the lane from `config`; `field` names the input that caused it. */
  | { type: 'configure'; config: CoreConfig; dataset: string; field?: string }
  | { type: 'start' }
  | { type: 'pause' }
  /** Rebuild the lane from its current configuration (same seed: the same curve again). */
  | { type: 'reset' }
  /** Pause for good at update `until` (null: run on); the lane itself is kept. */
  | { type: 'limit'; until: number | null }
  | { type: 'export' };

/** One point of a curve, as sent to the page. */
export interface CurvePoint {
  iter: number;
  sweeps: number;
  atll: number;
}

/** The lane's model, for the canvases. */
export interface LaneView {
  iter: number;
  m: number;
  n: number;
  /** W, m×n row-major. */
  weights: Float32Array;
  dist: Distribution | null;
  /** The first chains' visible states (`count × m`, 0/1), when the algorithm keeps chains. */
  chains: Uint8Array | null;
}

/** Worker → page. */
export type FromWorker =
  | { type: 'ready'; catalog: Catalog }
  /** The lane was (re)built; the page clears its curve. */
  | { type: 'configured'; seed: string; field?: string }
  /** The configuration was refused; the previous lane (if any) is kept unchanged. */
  | { type: 'rejected'; message: string; field?: string }
  | {
      type: 'progress';
      points: CurvePoint[];
      iter: number;
      /** Updates per second over the recent chunks. */
      rate: number;
      /** Per-algorithm statistics of the latest record (e.g. UCD's mean_tau). */
      stats: Record<string, number> | null;
      view: LaneView | null;
    }
  /** Running or not; `done` when the lane paused because it reached its `limit`. */
  | { type: 'state'; running: boolean; done?: true }
  /** The lane stopped for good (e.g. diverged); its model stays the last finite one. */
  | { type: 'failed'; message: string; iter: number }
  | { type: 'model'; json: string }
  /** The worker cannot work at all (e.g. the wasm did not load). */
  | { type: 'fatal'; message: string };

/** Wall-clock work per message: small enough for pause to answer at once, big enough to be cheap. */
export const SLICE_MS = 40;

/** Largest number of updates in one slice. */
export const MAX_CHUNK = 100_000;

/**
 * The number of updates for the next slice, from the last one: aim at `target` ms, grow at most
 * ×2 and shrink at most ÷4 per step (one slow evaluation should not collapse the chunk).
 */
export function nextChunk(prev: number, elapsedMs: number, target = SLICE_MS): number {
  if (!(elapsedMs > 0)) return Math.min(MAX_CHUNK, prev * 2);
  const ideal = (prev * target) / elapsedMs;
  const next = Math.max(prev / 4, Math.min(prev * 2, ideal));
  return Math.max(1, Math.min(MAX_CHUNK, Math.round(next)));
}

/** A rate as exponentially decayed sums of updates and of time (weighted by time, so slow slices
 * that include an exact evaluation count for what they cost). */
export interface Rate {
  updates: number;
  ms: number;
}

/** Adds one slice to a rate; `decay` is how much of the past is forgotten per slice. */
export function addToRate(r: Rate, updates: number, elapsedMs: number, decay = 0.1): Rate {
  if (!(elapsedMs >= 0) || updates <= 0) return r;
  return { updates: r.updates * (1 - decay) + updates, ms: r.ms * (1 - decay) + elapsedMs };
}

/** Updates per second of a rate (0 before any measurable slice). */
export function perSecond(r: Rate): number {
  return r.ms > 0 ? (1000 * r.updates) / r.ms : 0;
}

/** Updates left until the next record (a multiple of `every`) after `iter`. */
export function toNextRecord(iter: number, every: number): number {
  const e = Math.max(1, Math.floor(every));
  return e - (iter % e);
}
