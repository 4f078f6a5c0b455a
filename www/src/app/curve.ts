// A lane's curve: its exact log-likelihood points, kept small for drawing. No DOM here.
import type { CurvePoint, StatPoint } from '../protocol/messages';

/** A point series kept small: beyond `max` points, every other point is dropped. */
export interface Curve {
  iter: number[];
  sweeps: number[];
  atll: number[];
}

export const MAX_POINTS = 1500;

export function emptyCurve(): Curve {
  return { iter: [], sweeps: [], atll: [] };
}

/** Appends points (in iteration order), thinning the curve to at most `max` points. */
export function appendPoints(c: Curve, points: CurvePoint[], max = MAX_POINTS): void {
  for (const p of points) {
    const last = c.iter.length ? c.iter[c.iter.length - 1] : -1;
    if (p.iter <= last) continue;
    c.iter.push(p.iter);
    c.sweeps.push(p.sweeps);
    c.atll.push(p.atll);
    if (c.iter.length > max) {
      const keep = (_: number, i: number) => i % 2 === 0 || i === c.iter.length - 1;
      c.iter = c.iter.filter(keep);
      c.sweeps = c.sweeps.filter(keep);
      c.atll = c.atll.filter(keep);
    }
  }
}

/** Gibbs sweeps per chain per update so far (the compute an update costs), from the latest point. */
export function sweepsPerUpdate(c: Curve): number | null {
  const n = c.iter.length;
  return n && c.iter[n - 1] > 0 ? c.sweeps[n - 1] / c.iter[n - 1] : null;
}

/** Multiples of a lane's rise above its first point that its latest point may fall below that
 * point before the lane counts as collapsed: the chart's own floor (chartModel.ts FALL_SPANS),
 * so a collapsed lane is one that ran off the bottom of the chart. */
export const COLLAPSE_SPANS = 4;

/** Whether a lane's log-likelihood collapsed (η = 10⁹ took one to −3.6·10⁹): its latest point
 * lies more than COLLAPSE_SPANS times its rise (at least 1 nat) below its first. Null: it did
 * not; else its first and latest values. */
export function collapsed(c: Curve): { start: number; last: number } | null {
  const finite = c.atll.filter(Number.isFinite);
  if (finite.length < 2 && !c.atll.some((v) => v === Number.NEGATIVE_INFINITY)) return null;
  const start = c.atll[0];
  const last = c.atll[c.atll.length - 1];
  if (!Number.isFinite(start)) return null;
  if (last === Number.NEGATIVE_INFINITY) return { start, last };
  const best = Math.max(...finite);
  return last < start - COLLAPSE_SPANS * Math.max(best - start, 1) ? { start, last } : null;
}

/** A lane's statistics over training (UCD's τ), one entry per record, kept small like a curve. */
export interface StatCurve {
  iter: number[];
  sweeps: number[];
  stats: Record<string, number>[];
}

export function emptyStatCurve(): StatCurve {
  return { iter: [], sweeps: [], stats: [] };
}

/** Appends records' statistics (in update order), thinning to at most `max` entries. */
export function appendStats(c: StatCurve, points: readonly StatPoint[], max = MAX_POINTS): void {
  for (const p of points) {
    const last = c.iter.length ? c.iter[c.iter.length - 1] : -1;
    if (p.iter <= last) continue;
    c.iter.push(p.iter);
    c.sweeps.push(p.sweeps);
    c.stats.push({ ...p.stats });
    if (c.iter.length > max) {
      const keep = (_: unknown, i: number) => i % 2 === 0 || i === c.iter.length - 1;
      c.iter = c.iter.filter(keep);
      c.sweeps = c.sweeps.filter(keep);
      c.stats = c.stats.filter(keep);
    }
  }
}
