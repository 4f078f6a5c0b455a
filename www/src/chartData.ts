// Shapes the lanes' curves into the columns uPlot draws: one shared, sorted x column (updates
// or Gibbs sweeps), one y column per lane (null where a lane has no point), and the data set's
// bound as a constant column.
import type { Curve } from './curve';

export type Axis = 'iter' | 'sweeps';

export const AXIS_LABEL: Record<Axis, string> = {
  iter: 'parameter updates',
  sweeps: 'Gibbs sweeps per chain (equal compute)',
};

export interface ChartColumns {
  x: number[];
  /** One column per lane, in lane order, then the bound (if any). */
  ys: (number | null)[][];
}

export function chartColumns(curves: Curve[], axis: Axis, bound: number | null): ChartColumns {
  const xs = new Set<number>();
  for (const c of curves) for (const x of c[axis]) xs.add(x);
  const x = [...xs].sort((a, b) => a - b);
  const index = new Map<number, number>();
  x.forEach((v, i) => {
    index.set(v, i);
  });
  const ys: (number | null)[][] = curves.map((c) => {
    const col: (number | null)[] = new Array(x.length).fill(null);
    c[axis].forEach((v, i) => {
      const at = index.get(v);
      if (at !== undefined) col[at] = c.atll[i];
    });
    return col;
  });
  if (bound !== null) ys.push(x.map(() => bound));
  return { x, ys };
}

/** The y range to show: every point and the bound, with a little room. */
export function yRange(cols: ChartColumns): [number, number] | null {
  let lo = Infinity;
  let hi = -Infinity;
  for (const col of cols.ys) {
    for (const v of col) {
      if (v === null || !Number.isFinite(v)) continue;
      lo = Math.min(lo, v);
      hi = Math.max(hi, v);
    }
  }
  if (!(hi >= lo)) return null;
  const pad = Math.max(0.05 * (hi - lo), 0.1);
  return [lo - pad, hi + pad];
}

/** Colours of the lanes (colour-blind-safe Okabe–Ito order) and of the bound. */
export const LANE_COLOURS = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#000000'];
export const BOUND_COLOUR = '#777777';

export function laneColour(index: number): string {
  return LANE_COLOURS[index % LANE_COLOURS.length];
}
