// What the likelihood chart draws, DOM-free: one shared, sorted x column and every series
// interpolated onto it (a lane's line is drawn through its own points, so the interpolated
// values lie on it; outside a lane's x range its column is null), the bands to fill between
// pairs of series, and what the hover readout says at the cursor — every lane's value there,
// on every axis, in numbers formatted for people.
//
// Two kinds of charts: one curve per lane (single runs), or a study's bands per lane — the
// median across trials, the q10–q90 band (optionally q2.5–q97.5, the UCD paper's Figure 2)
// and thin lines of a few single trials.
import { type Axis, BOUND_COLOUR } from '../app/chartData';
import type { Curve } from '../app/curve';
import type { Band, Study } from '../app/study';

export type SeriesRole = 'curve' | 'median' | 'q10' | 'q90' | 'q025' | 'q975' | 'trial' | 'bound' | 'ais';

export interface SeriesSpec {
  label: string;
  colour: string;
  role: SeriesRole;
  /** The lane's position in the chart's lanes (null: the bound). */
  lane: number | null;
  width: number;
  dash?: number[];
  /** Opacity of the stroke (thin trial lines are faint). */
  alpha: number;
}

export interface ChartModel {
  x: number[];
  series: SeriesSpec[];
  /** One column per series, aligned with `x`. */
  ys: (number | null)[][];
  /** Fills between two series (indices into `series`): the upper one first. */
  bands: { upper: number; lower: number; fill: string }[];
  /** Error bars of the AIS series (role 'ais'): at `x`, from `lo` to `hi` (the AIS/RAISE
   * bracket widened by both methods' bars), in the series' colour. */
  errorBars?: { series: number; x: number; lo: number; hi: number }[];
}

/** A lane's AIS/RAISE brackets as the chart reads them (lane.ts Bracket). */
export interface ChartBracket {
  iter: number;
  sweeps: number;
  ais: { atll: number; atll_lo: number; atll_hi: number };
  raise: { atll: number; atll_lo: number; atll_hi: number };
}

export interface ChartLaneStyle {
  label: string;
  colour: string;
  /** The curve's dash pattern (chartData.ts, laneDash; none: solid). */
  dash?: number[];
}

/** The values of a series given at increasing `xs`, linearly interpolated at each x of the
 * sorted `grid`; null outside [xs₀, xsₙ] and where a value is not finite. */
export function interpolate(xs: readonly number[], ys: readonly number[], grid: readonly number[]): (number | null)[] {
  const out: (number | null)[] = new Array(grid.length).fill(null);
  if (xs.length === 0) return out;
  let j = 0;
  for (let i = 0; i < grid.length; i++) {
    const g = grid[i];
    if (g < xs[0] || g > xs[xs.length - 1]) continue;
    while (j + 1 < xs.length && xs[j + 1] < g) j++;
    let v: number;
    if (xs[j] === g) v = ys[j];
    else if (j + 1 < xs.length && xs[j + 1] === g) v = ys[j + 1];
    else {
      const t = (g - xs[j]) / (xs[j + 1] - xs[j]);
      v = ys[j] + (ys[j + 1] - ys[j]) * t;
    }
    out[i] = Number.isFinite(v) ? v : null;
  }
  return out;
}

/** The sorted union of several x series. */
function unionGrid(series: readonly (readonly number[])[]): number[] {
  const xs = new Set<number>();
  for (const s of series) for (const x of s) xs.add(x);
  return [...xs].sort((a, b) => a - b);
}

/** A colour with opacity `alpha` (from '#rrggbb'). */
export function withAlpha(colour: string, alpha: number): string {
  const m = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(colour);
  if (!m || alpha >= 1) return colour;
  const [r, g, b] = [m[1], m[2], m[3]].map((h) => Number.parseInt(h, 16));
  return `rgba(${r}, ${g}, ${b}, ${alpha})`;
}

interface Raw {
  spec: SeriesSpec;
  xs: number[];
  ys: number[];
}

/** The values of a series of separate points at each x of `grid` (null between them). */
function pointsAt(xs: readonly number[], ys: readonly number[], grid: readonly number[]): (number | null)[] {
  const at = new Map<number, number>();
  xs.forEach((x, i) => {
    if (Number.isFinite(ys[i])) at.set(x, ys[i]);
  });
  return grid.map((g) => at.get(g) ?? null);
}

function build(raws: Raw[], bound: number | null, bands: [SeriesRole, SeriesRole, number][]): ChartModel {
  const x = unionGrid(raws.map((r) => r.xs));
  const series = raws.map((r) => r.spec);
  const ys = raws.map((r) => (r.spec.role === 'ais' ? pointsAt(r.xs, r.ys, x) : interpolate(r.xs, r.ys, x)));
  if (bound !== null && x.length) {
    series.push({ label: 'bound (−entropy of the data)', colour: BOUND_COLOUR, role: 'bound', lane: null, width: 1.5, dash: [6, 4], alpha: 1 });
    ys.push(x.map(() => bound));
  }
  const out: ChartModel['bands'] = [];
  for (const [hi, lo, alpha] of bands) {
    series.forEach((s, i) => {
      if (s.role !== hi) return;
      const j = series.findIndex((t) => t.role === lo && t.lane === s.lane);
      if (j >= 0) out.push({ upper: i, lower: j, fill: withAlpha(s.colour, alpha) });
    });
  }
  return { x, series, ys, bands: out };
}

/** One curve per lane (single runs); a lane with AIS/RAISE brackets (its "AIS every N
 * updates") also gets them as points (the AIS estimate) with error bars (RAISE's lower bar to
 * AIS's upper bar), the way the S-DCP paper's Figure 3 plots AIS over training. */
export function curvesModel(lanes: (ChartLaneStyle & { curve: Curve; brackets?: readonly ChartBracket[] })[], axis: Axis, bound: number | null): ChartModel {
  const raws: Raw[] = [];
  lanes.forEach((l, i) => {
    if (l.curve.iter.length || !l.brackets?.length)
      raws.push({
        spec: { label: l.label, colour: l.colour, role: 'curve', lane: i, width: 2, alpha: 1, ...(l.dash ? { dash: l.dash } : {}) },
        xs: l.curve[axis],
        ys: l.curve.atll,
      });
    // A bracket whose x is unknown on this axis (sweeps not yet known) is left off.
    const shown = (l.brackets ?? []).filter((b) => Number.isFinite(axis === 'iter' ? b.iter : b.sweeps));
    if (shown.length)
      raws.push({
        spec: { label: `${l.label} AIS`, colour: l.colour, role: 'ais', lane: i, width: 0, alpha: 1 },
        xs: shown.map((b) => (axis === 'iter' ? b.iter : b.sweeps)),
        ys: shown.map((b) => b.ais.atll),
      });
  });
  const model = build(raws, bound, []);
  const errorBars: NonNullable<ChartModel['errorBars']> = [];
  lanes.forEach((l, i) => {
    const s = model.series.findIndex((t) => t.role === 'ais' && t.lane === i);
    if (s < 0) return;
    for (const b of l.brackets ?? []) {
      const lo = Math.min(b.raise.atll_lo, b.ais.atll_lo);
      const hi = Math.max(b.ais.atll_hi, b.raise.atll_hi);
      const x = axis === 'iter' ? b.iter : b.sweeps;
      if (Number.isFinite(lo) && Number.isFinite(hi) && Number.isFinite(x)) errorBars.push({ series: s, x: axis === 'iter' ? b.iter : b.sweeps, lo, hi });
    }
  });
  return errorBars.length ? { ...model, errorBars } : model;
}

/** How many single trials each lane draws as thin lines. */
export const TRACES = 3;

/** The x of a band on an axis (Gibbs sweeps: the mean over the trials behind it). */
function bandX(b: Band, axis: Axis): number {
  return axis === 'iter' ? b.iter : b.sweeps;
}

/**
 * A study's bands: per lane its median, the q10–q90 band (and q2.5–q97.5 when `wide`), and
 * thin lines of its first `traces` trials.
 */
export function studyModel(study: Study, lanes: ChartLaneStyle[], axis: Axis, wide: boolean, bound: number | null, traces = TRACES): ChartModel {
  const raws: Raw[] = [];
  lanes.forEach((l, i) => {
    const bands = study.bands(i).filter((b): b is Band => b !== null && Number.isFinite(bandX(b, axis)));
    const xs = bands.map((b) => bandX(b, axis));
    const add = (role: SeriesRole, label: string, pick: (b: Band) => number, width: number, alpha: number, dash?: number[]) =>
      raws.push({ spec: { label, colour: l.colour, role, lane: i, width, alpha, ...(dash ? { dash } : {}) }, xs, ys: bands.map(pick) });
    for (const t of study.trials[i].slice(0, traces)) {
      if (!t.points.length) continue;
      raws.push({
        spec: { label: `${l.label}, trial ${t.index}`, colour: l.colour, role: 'trial', lane: i, width: 1, alpha: 0.35 },
        xs: t.points.map((p) => (axis === 'iter' ? p.iter : p.sweeps)),
        ys: t.points.map((p) => p.atll),
      });
    }
    if (wide) {
      add('q975', `${l.label} q97.5`, (b) => b.q975, 0, 0);
      add('q025', `${l.label} q2.5`, (b) => b.q025, 0, 0);
    }
    add('q90', `${l.label} q90`, (b) => b.q90, 1, 0.5, [2, 3]);
    add('q10', `${l.label} q10`, (b) => b.q10, 1, 0.5, [2, 3]);
    add('median', `${l.label} median`, (b) => b.median, 2.5, 1, l.dash);
  });
  return build(raws, bound, [
    ['q975', 'q025', 0.08],
    ['q90', 'q10', 0.18],
  ]);
}

/**
 * One statistic of the lanes that report it (e.g. UCD's mean τ), across trials: per lane its
 * median and q10–q90 band at each checkpoint, over the updates since the previous one.
 */
export function statModel(study: Study, lanes: ChartLaneStyle[], key: string, axis: Axis): ChartModel {
  const raws: Raw[] = [];
  lanes.forEach((l, i) => {
    const bands = study.bands(i).filter((b): b is Band => b !== null && key in b.statBands && Number.isFinite(bandX(b, axis)));
    if (!bands.length) return;
    const xs = bands.map((b) => bandX(b, axis));
    const add = (role: SeriesRole, label: string, pick: (q: Band['statBands'][string]) => number, width: number, alpha: number, dash?: number[]) =>
      raws.push({
        spec: { label, colour: l.colour, role, lane: i, width, alpha, ...(dash ? { dash } : {}) },
        xs,
        ys: bands.map((b) => pick(b.statBands[key])),
      });
    add('q90', `${l.label} q90`, (q) => q.q90, 1, 0.5, [2, 3]);
    add('q10', `${l.label} q10`, (q) => q.q10, 1, 0.5, [2, 3]);
    add('median', `${l.label} median`, (q) => q.median, 2.5, 1);
  });
  return build(raws, null, [['q90', 'q10', 0.18]]);
}

const THIN = '\u202f';

/** A whole number with thin-space thousands (7 975). */
function grouped(n: number): string {
  const s = String(Math.abs(Math.round(n)));
  return (n < 0 ? '−' : '') + s.replace(/\B(?=(\d{3})+(?!\d))/g, THIN);
}

/** An x value for people: updates whole, Gibbs sweeps whole from 100 on, else 3 digits. */
export function formatX(x: number | null, axis: Axis): string {
  if (x === null || !Number.isFinite(x)) return '–';
  if (axis === 'iter' || Math.abs(x) >= 100) return grouped(x);
  return String(Number(x.toPrecision(3)));
}

/** A log-likelihood for people: 3 decimals, a real minus sign. */
export function formatAtll(v: number | null): string {
  if (v === null) return '–';
  if (v === Number.NEGATIVE_INFINITY) return 'diverged';
  if (!Number.isFinite(v)) return '–';
  const s = v.toFixed(3);
  return s.startsWith('-') ? `−${s.slice(1)}` : s;
}

export interface ReadoutRow {
  label: string;
  colour: string;
  /** A dashed lane's dash (its swatch is dashed too). */
  dash?: number[];
  /** The value (a study: the median, then the band). */
  text: string;
}

/** The x of a column's last value (null: none). */
function lastX(x: readonly number[], col: readonly (number | null)[]): number | null {
  for (let i = col.length - 1; i >= 0; i--) if (col[i] !== null) return x[i];
  return null;
}

/** What the readout says at grid index `idx` (null: no cursor; then each lane's last value). */
export function readout(model: ChartModel, idx: number | null, axis: Axis): { x: string; rows: ReadoutRow[] } {
  const at = (col: (number | null)[]): number | null => {
    if (idx !== null) return col[idx] ?? null;
    for (let i = col.length - 1; i >= 0; i--) if (col[i] !== null) return col[i];
    return null;
  };
  const rows: ReadoutRow[] = [];
  model.series.forEach((s, i) => {
    if (s.role !== 'curve' && s.role !== 'median' && s.role !== 'bound' && s.role !== 'ais') return;
    let text = formatAtll(at(model.ys[i]));
    if (s.role === 'ais') {
      const v = at(model.ys[i]);
      const xi = idx !== null ? model.x[idx] : lastX(model.x, model.ys[i]);
      const bar = model.errorBars?.find((b) => b.series === i && b.x === xi);
      if (v !== null && bar) text += ` [${formatAtll(bar.lo)}, ${formatAtll(bar.hi)}]`;
    }
    if (s.role === 'median') {
      const lo = model.series.findIndex((t) => t.role === 'q10' && t.lane === s.lane);
      const hi = model.series.findIndex((t) => t.role === 'q90' && t.lane === s.lane);
      if (lo >= 0 && hi >= 0 && at(model.ys[i]) !== null) text += ` (q10–q90 ${formatAtll(at(model.ys[lo]))} … ${formatAtll(at(model.ys[hi]))})`;
    }
    const dash = (s.role === 'curve' || s.role === 'median') && s.dash ? { dash: s.dash } : {};
    rows.push({ label: s.role === 'median' ? s.label.replace(/ median$/, '') : s.label, colour: s.colour, ...dash, text });
  });
  const x = idx !== null ? (model.x[idx] ?? null) : null;
  return { x: formatX(x, axis), rows };
}

/** How far below the lanes' starting points the y axis reaches, in multiples of their rise
 * above it: a lane that diverges (η = 10⁹ sent one to −3.7·10⁹) runs off the chart instead of
 * flattening every other curve; a fall like CD-1's (−5 back to −18 on Bars & Stripes) stays. */
export const FALL_SPANS = 4;

/** The lowest value the y axis shows (null: no clip): FALL_SPANS rises below the lowest first
 * point of a lane's curve or median. */
function floorOf(model: ChartModel, hi: number): number | null {
  let base = Infinity;
  model.ys.forEach((col, i) => {
    const role = model.series[i].role;
    if (role !== 'curve' && role !== 'median' && role !== 'ais') return;
    const first = col.find((v) => v !== null && Number.isFinite(v));
    if (first !== undefined && first !== null) base = Math.min(base, first);
  });
  return Number.isFinite(base) ? base - FALL_SPANS * Math.max(hi - base, 1) : null;
}

/** The y range to show: every drawn point (down to the floor of floorOf: a diverging lane runs
 * off the bottom), with a little room. */
export function modelRange(model: ChartModel): [number, number] | null {
  let lo = Infinity;
  let hi = -Infinity;
  model.ys.forEach((col, i) => {
    if (model.series[i].role === 'q025' || model.series[i].role === 'trial') return; // wide tails do not set the scale
    for (const v of col) {
      if (v === null || !Number.isFinite(v)) continue;
      lo = Math.min(lo, v);
      hi = Math.max(hi, v);
    }
  });
  for (const b of model.errorBars ?? []) {
    lo = Math.min(lo, b.lo);
    hi = Math.max(hi, b.hi);
  }
  if (!(hi >= lo)) return null;
  const floor = floorOf(model, hi);
  if (floor !== null && lo < floor) lo = floor;
  const pad = Math.max(0.05 * (hi - lo), 0.1);
  return [lo - pad, hi + pad];
}

/** A value for people at any size: −3.700 as formatAtll, −3.7·10⁹ beyond ±10⁵. */
export function formatValue(v: number): string {
  if (!Number.isFinite(v) || Math.abs(v) < 1e5) return formatAtll(v);
  const e = Math.floor(Math.log10(Math.abs(v)));
  const sup = String(e).replace(/\d/g, (d) => '⁰¹²³⁴⁵⁶⁷⁸⁹'[Number(d)]);
  const m = (Math.abs(v) / 10 ** e).toFixed(1);
  return `${v < 0 ? '−' : ''}${m}·10${sup}`;
}

/** What the chart says under the plot about the lanes below its range ('' for none). */
export function belowText(below: { label: string; min: number }[]): string {
  if (!below.length) return '';
  const each = below.map((b) => `${b.label} (down to ${formatValue(b.min)})`).join(', ');
  return `▼ Below the chart: ${each}. The axis stops at ${FALL_SPANS}× the lanes' rise below their start, so the others stay readable.`;
}

/** The lanes (curves or medians) that run below the chart's range, with their lowest value:
 * the chart marks them, since the axis no longer reaches them. */
export function belowChart(model: ChartModel, range: [number, number]): { label: string; colour: string; min: number }[] {
  const out: { label: string; colour: string; min: number }[] = [];
  model.ys.forEach((col, i) => {
    const s = model.series[i];
    if (s.role !== 'curve' && s.role !== 'median') return;
    let min = Infinity;
    for (const v of col) if (v !== null && Number.isFinite(v)) min = Math.min(min, v);
    if (min < range[0]) out.push({ label: s.role === 'median' ? s.label.replace(/ median$/, '') : s.label, colour: s.colour, min });
  });
  return out;
}

/** The likelihood chart's vertical label: exact curves, AIS points (lanes with an "AIS every N
 * updates" schedule), or both; undefined: the chart's own (exact). */
export function likelihoodLabel(lanes: readonly { curve: Curve; aisEvery: number | null; brackets: readonly unknown[] }[]): string | undefined {
  const ais = lanes.some((l) => l.aisEvery !== null || l.brackets.length > 0);
  if (!ais) return undefined;
  const exact = lanes.some((l) => l.curve.iter.length > 0);
  return exact ? 'log-likelihood (lines exact, points AIS)' : 'log-likelihood (AIS)';
}

/** The chart cursor's next column after key `key` (arrows: one column, with Shift ten;
 * Home/End: the ends; the first arrow from no cursor goes to the last column for ← and the
 * first for →); undefined: not a cursor key; null: no cursor (Escape, or no columns). */
export function cursorStep(idx: number | null, columns: number, key: string, shift = false): number | null | undefined {
  if (key === 'Escape') return null;
  if (!['ArrowLeft', 'ArrowRight', 'Home', 'End'].includes(key)) return undefined;
  if (columns === 0) return null;
  const last = columns - 1;
  if (key === 'Home') return 0;
  if (key === 'End') return last;
  const step = shift ? 10 : 1;
  if (idx === null) return key === 'ArrowLeft' ? last : 0;
  return Math.min(last, Math.max(0, idx + (key === 'ArrowLeft' ? -step : step)));
}
