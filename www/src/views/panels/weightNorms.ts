// ‖W‖ per hidden unit over training: the Euclidean norm ‖W[:,j]‖ of each hidden unit's weights,
// asked of the lane's worker (the `hiddenNorms` analysis, protocol/analyses.ts; computed there,
// never on the page's thread) at each new view of the lane, at most one request at a time. A
// heat strip shows the first units (one row each) across the updates seen; a chart shows the
// mean and the largest norm over every unit. Units whose weights grow are the ones learning
// features; units that stay short are unused.
import type { LaneHandle } from '../../app/lane';
import type { HiddenNorms } from '../../protocol/analyses';
import { el, setAttr, setText } from '../dom';
import { formatStat } from '../format';
import { MiniChart } from '../miniChart';
import { pngName } from '../png';
import { Foldable, type LanePanel, type PanelContext, type PanelKind } from './panel';

/** The units the strip shows (the first ones); the worker sends these and the summary. */
export const NORM_UNITS = 64;

/** Most updates the history keeps: beyond it, every other column is dropped (the latest kept). */
export const MAX_NORM_COLUMNS = 200;

/** CSS pixels per unit (row) of the strip: about 160 in all, 2 to 8 per unit. */
export function rowPx(rows: number): number {
  return Math.max(2, Math.min(8, Math.floor(160 / Math.max(1, rows))));
}

/** The norms seen over training, one column per update, oldest first. */
export interface NormHistory {
  iters: number[];
  /** ‖W[:,j]‖ of the first units, per column. */
  norms: number[][];
  mean: number[];
  max: number[];
  /** Hidden units of the model. */
  n: number;
}

export function emptyNorms(): NormHistory {
  return { iters: [], norms: [], mean: [], max: [], n: 0 };
}

/** Adds the norms at update `iter` (an update already seen replaces its column); past `cap`
 * columns, every other older column goes, so the history spans the whole run in bounded size. */
export function addNorms(h: NormHistory, iter: number, r: HiddenNorms, cap = MAX_NORM_COLUMNS): NormHistory {
  const rows = h.iters.map((it, i) => ({ it, norms: h.norms[i], mean: h.mean[i], max: h.max[i] })).filter((c) => c.it !== iter);
  rows.push({ it: iter, norms: r.norms, mean: r.mean, max: r.max });
  rows.sort((a, b) => a.it - b.it);
  let kept = rows;
  while (kept.length > cap) {
    const last = kept[kept.length - 1];
    kept = kept.filter((_, i) => i % 2 === 0 && i !== kept.length - 1);
    kept.push(last);
  }
  return { iters: kept.map((c) => c.it), norms: kept.map((c) => c.norms), mean: kept.map((c) => c.mean), max: kept.map((c) => c.max), n: r.n };
}

/** The chart's columns: update, mean norm, largest norm (null where not finite: a diverged model). */
export function normColumns(h: NormHistory): { x: number[]; ys: (number | null)[][] } {
  const finite = (xs: number[]) => xs.map((x) => (Number.isFinite(x) ? x : null));
  return { x: h.iters, ys: [finite(h.mean), finite(h.max)] };
}

/** Light to dark: a longer weight vector is darker. */
const STOPS: [number, number, number][] = [
  [255, 255, 229],
  [254, 178, 76],
  [227, 74, 51],
  [84, 39, 143],
];

function colour(t: number): [number, number, number] {
  const x = Math.min(1, Math.max(0, t)) * (STOPS.length - 1);
  const i = Math.min(STOPS.length - 2, Math.floor(x));
  const f = x - i;
  const [a, b] = [STOPS[i], STOPS[i + 1]];
  return [0, 1, 2].map((k) => Math.round(a[k] + f * (b[k] - a[k]))) as [number, number, number];
}

/** The strip as RGBA pixels: one column per update, one row per unit (unit 1 at the top), each
 * coloured by where its norm lies between the shortest (`lo`, lightest) and the longest (`hi`,
 * darkest) finite norm in the strip. */
export function stripPixels(h: NormHistory): { width: number; height: number; data: Uint8ClampedArray<ArrayBuffer>; lo: number; hi: number } {
  const width = h.iters.length;
  const height = h.norms.reduce((a, c) => Math.max(a, c.length), 0);
  let lo = Number.POSITIVE_INFINITY;
  let hi = 0;
  for (const c of h.norms) for (const x of c) if (Number.isFinite(x)) [lo, hi] = [Math.min(lo, x), Math.max(hi, x)];
  if (!(lo <= hi)) lo = hi;
  const span = hi - lo;
  const data = new Uint8ClampedArray(4 * width * height);
  for (let x = 0; x < width; x++) {
    const col = h.norms[x];
    for (let y = 0; y < height; y++) {
      const v = col[y];
      // White below a shorter column; grey where a diverged model has no finite norm.
      const [r, g, b] = y >= col.length ? [255, 255, 255] : Number.isFinite(v) ? colour(span > 0 ? (v - lo) / span : 1) : [128, 128, 128];
      data.set([r, g, b, 255], 4 * (y * width + x));
    }
  }
  return { width, height, data, lo, hi };
}

/** The caption: what the strip shows (its colours span `lo` to `hi`) and the latest numbers. */
export function normCaption(h: NormHistory, lo: number, hi: number): string {
  const last = h.iters.length - 1;
  if (last < 0) return '';
  const shown = h.norms[last].length;
  const units = shown < h.n ? `the first ${shown} of the ${h.n.toLocaleString('en')} hidden units` : `each of the ${h.n} hidden units`;
  return (
    `‖W[:,j]‖ of ${units} (rows, unit 1 at the top) over updates ${h.iters[0].toLocaleString('en')} to ${h.iters[last].toLocaleString('en')} (columns), from ${formatStat(lo)} (lightest) to ${formatStat(hi)} (darkest). ` +
    `At update ${h.iters[last].toLocaleString('en')}: mean ${formatStat(h.mean[last])}, largest ${formatStat(h.max[last])} over all units.`
  );
}

class WeightNormsPanel implements LanePanel {
  private fold!: Foldable;
  private root!: HTMLElement;
  private canvas!: HTMLCanvasElement;
  private chart!: MiniChart;
  private caption!: HTMLElement;
  private history = emptyNorms();
  private gen = -1;
  /** The view at which the latest request went out (a new view: ask again). */
  private askedView: unknown = null;
  private askedIter = -1;
  private seen: unknown = null;

  mount(container: HTMLElement, ctx: PanelContext): void {
    this.canvas = el('canvas', { className: 'norm-strip', width: 0, height: 0 });
    this.canvas.setAttribute('role', 'img');
    this.canvas.setAttribute('aria-label', '‖W[:,j]‖ per hidden unit over training (drawn once the lane has them)');
    Object.assign(this.canvas.style, { width: '100%', imageRendering: 'pixelated', display: 'block' });
    this.chart = new MiniChart(
      {
        xLabel: 'update',
        yLabel: '‖W[:,j]‖',
        series: [
          { label: 'mean over units', colour: ctx.colour },
          { label: 'largest', colour: '#000000', dash: [4, 3] },
        ],
        height: 140,
      },
      () => pngName(ctx.fileStem(), 'weight-norms'),
      '‖W‖ per hidden unit over training',
    );
    this.caption = el('p', { className: 'norm-caption' });
    this.root = el('div', { className: 'weight-norms' }, this.canvas, this.chart.el, this.caption);
    this.fold = new Foldable('‖W‖ per hidden unit', 'norm-view', ctx, this.root);
    this.fold.el.hidden = true;
    container.append(this.fold.el);
  }

  update(lane: LaneHandle, ctx: PanelContext): void {
    if (lane.gen !== this.gen) {
      // A new lane (configuration or reset): a new history.
      this.gen = lane.gen;
      this.history = emptyNorms();
      this.askedIter = -1;
      this.fold.drawn.forget();
    }
    // One request per new view of the lane (≤ 4 per second while it trains), one at a time.
    const r = lane.analyses.hiddenNorms;
    if (lane.view && lane.view !== this.askedView && lane.iter !== this.askedIter && r?.state !== 'running') {
      if (lane.analyze({ kind: 'hiddenNorms', units: NORM_UNITS })) {
        this.askedView = lane.view;
        this.askedIter = lane.iter;
      }
    }
    if (r && r !== this.seen && r.state === 'done' && r.result) {
      this.seen = r;
      this.history = addNorms(this.history, r.iter, r.result);
    }
    const h = this.history;
    this.fold.el.hidden = h.iters.length === 0;
    const width = ctx.width();
    if (this.fold.el.hidden || !this.fold.showing(ctx) || !this.fold.drawn.changed(h, width)) return;
    const px = stripPixels(h);
    Object.assign(this.canvas, { width: px.width, height: px.height });
    this.canvas.style.height = `${px.height * rowPx(px.height)}px`;
    this.canvas.getContext('2d')?.putImageData(new ImageData(px.data, px.width, px.height), 0, 0);
    const { x, ys } = normColumns(h);
    this.chart.set(x, ys, width);
    const text = normCaption(h, px.lo, px.hi);
    setText(this.caption, text);
    this.canvas.setAttribute('aria-label', text);
    const last = h.iters.length - 1;
    setAttr(this.root, 'data-iter', String(h.iters[last]));
    setAttr(this.root, 'data-columns', String(h.iters.length));
    setAttr(this.root, 'data-units', `${h.norms[last].length}/${h.n}`);
    setAttr(this.root, 'data-norms', h.norms[last].map((v) => v.toPrecision(6)).join(','));
  }
}

export const weightNormsPanel: PanelKind = {
  name: 'weight-norms',
  title: '‖W‖ per hidden unit',
  help: "The length ‖W[:,j]‖ of each hidden unit's weights over training, computed in the lane's worker: units whose weights grow learn features, units that stay short are unused.",
  term: 'filter',
  create: () => new WeightNormsPanel(),
};
