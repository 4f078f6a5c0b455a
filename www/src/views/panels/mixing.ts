// How hard the model is to sample, exactly and over training (issue 29; `rbm mixing`,
// src/diagnostics/spectrum.rs): every N updates (and on "now") the lane's worker finds the second
// eigenvalue λ₂ of the visible Gibbs chain of the lane's current model by Lanczos over the exact
// kernel, with the singular values of W and the modes of p(v) (its `mixing` analysis,
// protocol/analyses.ts). The panel plots the relaxation time 1/(1 − λ₂) — in Gibbs sweeps, on a
// log scale — with the number of modes of p(v) over training (PCD's chains fall behind as the
// relaxation time climbs), and the strip of W's largest singular values over training (as
// Decelle et al. and Bachtis et al. watch them). λ₂ is exact for m + n ≤ 24; beyond, with each
// layer ≤ 20 units (Bars & Stripes 4×4 with 16 hidden units), the worker computes a lower bound on
// it from test functions (src/diagnostics/mixing_bound.rs), and the panel says "≥".

import type { LaneHandle } from '../../app/lane';
import type { MixingResult } from '../../generated/core';
import { el, setAttr, setText } from '../dom';
import { formatStat } from '../format';
import { MiniChart } from '../miniChart';
import { pngName } from '../png';
import { AnalysisControls } from './analysisControls';
import { addGradPoint } from './gradError';
import { Foldable, type LanePanel, type PanelContext, type PanelKind } from './panel';

/** The largest m + n the core's exact kernel walks (src/diagnostics/spectrum.rs). */
export const MIXING_BITS = 24;

/** The largest layer the core's bound on λ₂ enumerates (src/diagnostics/mixing_bound.rs). */
export const BOUND_LAYER_BITS = 20;

/** How the worker finds λ₂ of an m×n model: exactly, a lower bound, or not at all. */
export function mixingReach(m: number, n: number): 'exact' | 'bound' | null {
  if (m + n <= MIXING_BITS) return 'exact';
  return m <= BOUND_LAYER_BITS && n <= BOUND_LAYER_BITS ? 'bound' : null;
}

/** Singular values of W the strip follows (the largest ones). */
export const STRIP_VALUES = 8;

/** The strip's line colours, σ₁ darkest. */
const STRIP_COLOURS = ['#111111', '#3b3b8f', '#1f6f8b', '#2a8a5a', '#7a7a1f', '#8b5a1f', '#8b1f4a', '#777777'];

/** Updates between two automatic points when the user has not chosen (0: on request only). */
export const DEFAULT_MIXING_EVERY = 500;

/** One point of the panel's history: the diagnostics at update `iter`. */
export interface MixingPoint {
  iter: number;
  /** Whether λ₂ is exact; false: `lambda2` and `relaxation` are lower bounds. */
  exact: boolean;
  lambda2: number;
  /** 1/(1 − λ₂) in sweeps (null when λ₂ rounds to 1: infinite). */
  relaxation: number | null;
  sigma1: number;
  /** The largest singular values of W (at most STRIP_VALUES), descending. */
  sigmas: number[];
  modes: number | null;
}

/** The history point of a result. */
export function mixingPoint(r: MixingResult): MixingPoint {
  const t = r.gibbs ? r.gibbs.relaxation_time : r.bound?.relaxation_time_lower;
  return {
    iter: r.iter,
    exact: r.gibbs !== null,
    lambda2: r.gibbs ? r.gibbs.lambda2 : (r.bound?.lambda2_lower ?? 0),
    relaxation: typeof t === 'number' && Number.isFinite(t) ? t : null,
    sigma1: r.singular_values[0] ?? 0,
    sigmas: r.singular_values.slice(0, STRIP_VALUES),
    modes: r.modes,
  };
}

/** Adds a point to a history sorted by update (a point at the same update replaces it). */
export const addMixingPoint: (history: MixingPoint[], p: MixingPoint) => MixingPoint[] = addGradPoint;

/** Whether a point is due at update `iter`, `every` updates after the last asked at `last`
 * (−∞: none yet; the first point is at the lane's start). */
export function mixingDue(every: number, iter: number, last: number, now = 0, quietUntil = 0): boolean {
  return every > 0 && iter - last >= every && now >= quietUntil;
}

/** After an automatic point that took `ms` in the worker, the next waits this long, so the
 * diagnostics take at most a quarter of the lane's time (the bound on BAS 4×4 with 16 hidden
 * units takes seconds per point, and would otherwise halve the lane's pace). */
export function mixingQuiet(ms: number): number {
  return 3 * Math.max(0, ms);
}

/** The panel's line on the latest point. */
export function mixingText(p: MixingPoint): string {
  const t = p.relaxation === null ? 'infinite' : `${formatStat(p.relaxation)} Gibbs sweeps`;
  const modes = p.modes === null ? '' : `; p(v) has ${p.modes.toLocaleString('en')} mode${p.modes === 1 ? '' : 's'}`;
  const is = p.exact ? '=' : '≥';
  // Near 1, six decimals would read "1.000000": say how far below 1 it is.
  const l = p.lambda2;
  const lambda = l > 0.999999 && l < 1 ? `1 − ${(1 - l).toExponential(2)}` : l.toFixed(6);
  const time = p.exact ? `relaxation time ${t}` : `relaxation time at least ${t}`;
  return `At update ${p.iter.toLocaleString('en')}: λ₂ ${is} ${lambda}, ${time}; largest singular value of W ${formatStat(p.sigma1)}${modes}.`;
}

/** The panel's caption: how λ₂ was found (exactly, or bounded from below). */
export function mixingCaption(exact: boolean): string {
  const what =
    "Each point: the second eigenvalue λ₂ of the visible Gibbs chain T(v→v′) = Σ_h p(h|v) p(v′|h) of the lane's model, and its relaxation time 1/(1 − λ₂): about how many Gibbs sweeps a chain needs to forget where it started. When it climbs past the sweeps the algorithm spends per update, its chains lag behind the model.";
  return exact
    ? `${what} λ₂ is found exactly (Lanczos over every joint state).`
    : `${what} This model has too many joint states for the exact λ₂, so each point is a lower bound, computed exactly: the largest Rayleigh quotient of T over the pairs and single units of one layer (v_i v_k and v_i, or h_j h_l and h_j). The true relaxation time is at least the value plotted. On the smaller models where both can be computed (the core's tests; docs/algorithms.md) the bound came within 1.5 % of λ₂, but 1/(1 − λ₂) magnifies the gap near 1: on Bars & Stripes 4×4 with 8 hidden units after 4,000 PCD-1 updates, at least 98 sweeps against the exact 142.`;
}

class MixingPanel implements LanePanel {
  private fold!: Foldable;
  private root!: HTMLElement;
  private controls!: AnalysisControls;
  private every!: HTMLInputElement;
  /** The relaxation chart (made with the first point: its legend says exact or bound). */
  private chart: MiniChart | null = null;
  private chartBox!: HTMLElement;
  private caption!: HTMLElement;
  /** The strip of singular values (made with the first point: its number of lines is W's). */
  private strip: MiniChart | null = null;
  private stripBox!: HTMLElement;
  private projection!: HTMLCanvasElement;
  private projectionCaption!: HTMLElement;
  private projectionFigure!: HTMLElement;
  /** The latest result (its projection is drawn). */
  private latest: MixingResult | null = null;
  private ctx!: PanelContext;
  private text!: HTMLElement;
  private lane: LaneHandle | null = null;
  private history: MixingPoint[] = [];
  private gen = -1;
  private asked = Number.NEGATIVE_INFINITY;
  /** No automatic point before this time (performance.now()): see mixingQuiet. */
  private quietUntil = 0;
  private shown: unknown;
  private width = 0;
  /** A refusal (a model too large) stops the interval until the user asks again. */
  private stopped = false;
  /** The history and width the chart shows (it draws once on screen, whenever that is). */
  private drawn: { points: MixingPoint[]; width: number } | null = null;

  mount(container: HTMLElement, ctx: PanelContext): void {
    this.ctx = ctx;
    this.controls = new AnalysisControls('mixing', 'Compute now', () => {
      this.stopped = false;
      this.ask();
    });
    const c = this.controls;
    this.every = el('input', {
      type: 'number',
      id: `${ctx.idPrefix}-mixing-every`,
      className: 'mixing-every',
      min: '0',
      step: '100',
      value: String(DEFAULT_MIXING_EVERY),
    });
    this.every.style.width = '6em';
    this.chartBox = el('div', { className: 'mixing-chart' });
    this.caption = el('p', { className: 'mixing-caption' }, mixingCaption(true));
    this.text = el('p', { className: 'mixing-text' });
    this.stripBox = el('div', { className: 'mixing-strip' });
    this.projection = el('canvas', { className: 'mixing-projection', role: 'img', width: 0, height: 0 });
    this.projection.setAttribute('aria-label', 'The projection on W’s top two singular directions, after the first result.');
    this.projectionCaption = el('figcaption', {});
    this.projectionFigure = el('figure', { className: 'mixing-projection-figure', hidden: true }, this.projection, this.projectionCaption);
    this.root = el(
      'div',
      { className: 'mixing' },
      el('div', { className: 'inline' }, el('label', { htmlFor: this.every.id }, 'every'), ' ', this.every, ' updates (0: on request) ', c.run, ' ', c.cancel),
      c.status,
      this.chartBox,
      this.stripBox,
      this.projectionFigure,
      this.text,
      this.caption,
    );
    this.fold = new Foldable('mixing (λ₂, spectrum of W)', 'mixing-view', ctx, this.root);
    container.append(this.fold.el);
  }

  private ask(): void {
    const lane = this.lane;
    if (lane?.analyze({ kind: 'mixing' })) this.asked = lane.iter;
  }

  update(lane: LaneHandle, ctx: PanelContext): void {
    this.lane = lane;
    if (lane.gen !== this.gen) {
      this.gen = lane.gen;
      this.history = [];
      this.strip = null;
      this.stripBox.replaceChildren();
      this.chart = null;
      this.chartBox.replaceChildren();
      this.latest = null;
      this.asked = Number.NEGATIVE_INFINITY;
      this.quietUntil = 0;
      this.stopped = false;
    }
    const v = lane.view;
    const reach = v === null ? 'exact' : mixingReach(v.m, v.n);
    this.fold.el.hidden = reach === null;
    if (this.fold.el.hidden) return;
    setText(this.caption, mixingCaption(reach === 'exact'));
    this.controls.enable(lane);
    const r = lane.analyses.mixing;
    const every = Number(this.every.value);
    const now = performance.now();
    if (
      r?.state !== 'running' &&
      !this.stopped &&
      lane.status === 'running' &&
      // Lanes that take turns (more than compute at once) compute points on request only: their
      // turns go to training, and a Pause leaves no point under way.
      !lane.takesTurns &&
      mixingDue(Number.isInteger(every) ? every : 0, lane.iter, this.asked, now, this.quietUntil)
    )
      this.ask();
    const width = ctx.width();
    this.draw(ctx, width);
    if (r === this.shown && width === this.width) return;
    const changed = r !== this.shown;
    this.shown = r;
    this.width = width;
    this.controls.show(this.root, r, {
      unit: reach === 'exact' ? 'Lanczos steps' : 'thousand states',
      running: (q) =>
        `${reach === 'exact' ? 'walking the exact kernel' : 'bounding λ₂ over each layer’s states'} at update ${q.iter >= 0 ? q.iter.toLocaleString('en') : '…'}`,
      done: () => '',
      failed: 'cannot compute',
    });
    if (!r) return;
    if (r.state === 'failed') this.stopped = true;
    if (changed && r.state === 'done') this.quietUntil = now + mixingQuiet(r.ms);
    if (r.result) {
      const p = mixingPoint(r.result);
      this.history = addMixingPoint(this.history, p);
      setText(this.text, mixingText(p));
      setAttr(this.root, 'data-iter', String(p.iter));
      setAttr(this.root, 'data-lambda2', String(p.lambda2));
      setAttr(this.root, 'data-points', String(this.history.length));
      setAttr(this.root, 'data-projection', JSON.stringify(r.result.data_points));
      const chains = r.result.chain_points.length;
      const what = `The ${r.result.data_points.length} training rows (black)${chains ? ` and the lane's first ${chains} chains (colour)` : ''} projected on W's top two singular directions, at update ${r.result.iter.toLocaleString('en')}.`;
      setText(this.projectionCaption, what);
      this.projection.setAttribute('aria-label', what);
      this.projectionFigure.hidden = false;
      this.latest = r.result;
    }
    this.draw(ctx, width);
  }

  /** Draws the history once the panel is on screen (and again when it or the width changed). */
  private draw(ctx: PanelContext, width: number): void {
    if (this.history.length === 0 || !this.fold.showing(ctx)) return;
    if (this.drawn?.points === this.history && this.drawn.width === width) return;
    this.drawn = { points: this.history, width };
    const x = this.history.map((p) => p.iter);
    if (!this.chart) {
      const exact = this.history[0].exact;
      this.chart = new MiniChart(
        {
          xLabel: 'update',
          yLabel: exact ? 'relaxation (sweeps)' : 'relaxation ≥ (sweeps)',
          y2Label: 'modes of p(v)',
          logY: true,
          series: [
            { label: exact ? 'relaxation time 1/(1 − λ₂)' : 'relaxation time ≥ 1/(1 − bound on λ₂)', colour: ctx.colour },
            { label: 'modes of p(v)', colour: '#777777', dash: [6, 4], right: true },
          ],
        },
        () => pngName(ctx.fileStem(), 'mixing'),
        exact ? 'relaxation time over training' : 'lower bound on the relaxation time over training',
      );
      this.chartBox.replaceChildren(this.chart.el);
    }
    this.chart.set(x, [this.history.map((p) => p.relaxation), this.history.map((p) => p.modes)], width);
    const k = Math.max(...this.history.map((p) => p.sigmas.length));
    if (!this.strip) {
      const ctx = this.ctx;
      this.strip = new MiniChart(
        {
          xLabel: 'update',
          yLabel: 'singular value',
          height: 160,
          series: Array.from({ length: k }, (_, j) => ({ label: `σ${subscript(j + 1)}`, colour: STRIP_COLOURS[j % STRIP_COLOURS.length] })),
        },
        () => pngName(ctx.fileStem(), 'singular-values'),
        "W's largest singular values over training",
      );
      this.stripBox.replaceChildren(this.strip.el);
    }
    if (this.latest) drawProjection(this.projection, this.latest, this.ctx.colour, Math.min(240, width));
    this.strip.set(
      x,
      Array.from({ length: k }, (_, j) => this.history.map((p) => p.sigmas[j] ?? null)),
      width,
    );
  }
}

/** The square the projection scatter shows: the points' range on both axes, with a margin
 * (a single point or none: a unit square around it). */
export function projectionBounds(points: readonly (readonly [number, number])[]): { x0: number; y0: number; size: number } {
  if (points.length === 0) return { x0: -0.5, y0: -0.5, size: 1 };
  let [xa, xb, ya, yb] = [Infinity, -Infinity, Infinity, -Infinity];
  for (const [x, y] of points) {
    xa = Math.min(xa, x);
    xb = Math.max(xb, x);
    ya = Math.min(ya, y);
    yb = Math.max(yb, y);
  }
  const size = Math.max(xb - xa, yb - ya, 1e-9) * 1.1;
  return { x0: (xa + xb) / 2 - size / 2, y0: (ya + yb) / 2 - size / 2, size };
}

/** The data (black) and the chains (the lane's colour) on W's top two singular directions. */
function drawProjection(canvas: HTMLCanvasElement, r: MixingResult, colour: string, css: number): void {
  const dpr = window.devicePixelRatio || 1;
  canvas.style.width = `${css}px`;
  canvas.style.height = `${css}px`;
  canvas.width = Math.round(css * dpr);
  canvas.height = Math.round(css * dpr);
  const g = canvas.getContext('2d');
  if (!g) return;
  g.setTransform(dpr, 0, 0, dpr, 0, 0);
  g.clearRect(0, 0, css, css);
  g.strokeStyle = '#ddd';
  g.strokeRect(0.5, 0.5, css - 1, css - 1);
  const b = projectionBounds([...r.data_points, ...r.chain_points]);
  const at = ([x, y]: [number, number]): [number, number] => [((x - b.x0) / b.size) * css, css - ((y - b.y0) / b.size) * css];
  g.globalAlpha = 0.35;
  g.fillStyle = colour;
  for (const p of r.chain_points) {
    const [x, y] = at(p);
    g.fillRect(x - 1.5, y - 1.5, 3, 3);
  }
  g.globalAlpha = 1;
  g.fillStyle = '#000';
  for (const p of r.data_points) {
    const [x, y] = at(p);
    g.beginPath();
    g.arc(x, y, 2.5, 0, 2 * Math.PI);
    g.fill();
  }
}

/** `n` in subscript digits (σ₁ … σ₈). */
function subscript(n: number): string {
  return String(n).replace(/\d/g, (d) => String.fromCharCode(0x2080 + Number(d)));
}

export const mixingPanel: PanelKind = {
  name: 'mixing',
  title: 'mixing (λ₂, spectrum of W)',
  help: "Every so often, how hard the lane's model is to sample: the exact relaxation time of its Gibbs chain and the modes of p(v), and the strip of W's largest singular values, over training (models with m + n ≤ 24).",
  term: 'gibbs-sweep',
  create: () => new MixingPanel(),
};
