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

/**
 * Colours of the lanes: six hues (blue, orange, violet, crimson, plum, indigo), each with a
 * contrast of at least 4.5:1 on the page's white and #fafafa (WCAG AA) and each a colour, not a
 * near-black (CIELAB L* ≥ 30, chroma ≥ 40: three near-blacks could not be told apart as 2-px
 * lines, issue 27), chosen to stay apart in normal vision and under protanopia, deuteranopia
 * and tritanopia (CIELAB ΔE ≥ 20 between any two, simulated; chartData.test.ts checks all of
 * it). Lanes 6–11 repeat them dashed, so up to 12 lanes differ in colour or line; 12 on repeat
 * the pattern (the page warns past 8 lanes).
 */
export const LANE_COLOURS = ['#0072B2', '#BB5511', '#9900FF', '#DD0055', '#882266', '#4433AA'];
/** The bound's colour (drawn dashed, thinner). */
export const BOUND_COLOUR = '#707070';
/** The line of lanes 6–11 (solid before). */
export const LANE_DASH = [8, 4];

export function laneColour(index: number): string {
  return LANE_COLOURS[index % LANE_COLOURS.length];
}

/** The dash pattern of lane `index`'s curve (undefined: solid). */
export function laneDash(index: number): number[] | undefined {
  return Math.floor(index / LANE_COLOURS.length) % 2 === 1 ? LANE_DASH : undefined;
}

/** The swatches' dash: the line's pattern scaled to fit twice in a 10-px swatch (the line's own
 * 8 + 4 px left a 10-px swatch looking solid, issue 27). */
export function swatchDash(dash: number[]): [number, number] {
  const scale = 5 / (dash[0] + dash[1]);
  return [Math.max(2, Math.round(dash[0] * scale)), Math.max(2, Math.round(dash[1] * scale))];
}

/** A swatch's CSS background for a colour and dash: dashed lanes get a dashed swatch. */
export function swatchBackground(colour: string, dash?: number[]): string {
  if (!dash) return colour;
  const [on, off] = swatchDash(dash);
  return `repeating-linear-gradient(90deg, ${colour} 0 ${on}px, transparent ${on}px ${on + off}px)`;
}

/** Lanes past which the page warns: the chart repeats its six colours dashed from lane 7 on,
 * and every lane's worker shares the machine's cores and the page's redraws. */
export const MANY_LANES = 8;

/** The one notice about many lanes (null: `n` ≤ MANY_LANES). */
export function manyLanesText(n: number, cores: number): string | null {
  if (n <= MANY_LANES) return null;
  return `${n} lanes: past ${MANY_LANES} the chart is hard to read (six colours, repeated dashed from the seventh lane${n > 12 ? ' and again past the twelfth' : ''}), and the lanes share this machine's ${cores} core${cores === 1 ? '' : 's'}, so each trains slower and the page redraws less often. Remove lanes, or compare a few at a time.`;
}
