// A lane's curve: its exact log-likelihood points, kept small for drawing. No DOM here.
import type { CurvePoint } from '../protocol/messages';

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
