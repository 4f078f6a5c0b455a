// Gradient error, live (`rbm grad`, src/diagnostics/grad.rs): every `every` updates (and on
// "now") the lane's worker estimates the lane's algorithm's gradient at its current model over
// repetitions and compares it with the exact gradient (its `grad` analysis, protocol/analyses.ts); the panel plots, over
// training, the bias norm ‖mean − exact‖ against the standard error of the mean, and the cosine
// to the exact gradient — CD's bias growing out of its error bars, UCD's staying within them.

import type { LaneHandle } from '../../app/lane';
import type { GradResult } from '../../generated/core';
import { el, setAttr, setText } from '../dom';
import { formatStat } from '../format';
import { MiniChart } from '../miniChart';
import { pngName } from '../png';
import { AnalysisControls } from './analysisControls';
import { Foldable, type LanePanel, type PanelContext, type PanelKind } from './panel';
import { ViewFields } from './viewFields';

/** The gradient panel's repetitions and interval when the page has no value (the schema's
 * `grad_reps`, `grad_every`: 50 repetitions, on request only). Seed 1: an estimate is
 * `rbm grad --seed 1`'s at the same model. */
export const DEFAULT_GRAD = { reps: 50, every: 0, seed: 1 };

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

/** Adds a point to a history sorted by update (a point at the same update replaces it); the
 * panels' histories over training share it. */
export function addGradPoint<P extends { iter: number }>(history: P[], p: P): P[] {
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

/** The largest smaller layer whose exact gradient the core enumerates (src/eval/exact.rs). */
export const GRAD_EXACT_BITS = 20;

/** The chart's columns: update, bias norm, standard-error norm, 2 × standard error, cosine. */
export function gradColumns(history: GradPoint[]): { x: number[]; ys: (number | null)[][] } {
  return {
    x: history.map((p) => p.iter),
    ys: [history.map((p) => p.bias), history.map((p) => p.stdErr), history.map((p) => 2 * p.stdErr), history.map((p) => p.cosine)],
  };
}

/** The panel's line on the latest estimate. */
export function gradText(p: GradPoint, reps: number): string {
  const within = p.ratio <= 2 ? 'within two standard errors: no bias visible at this many repetitions' : `${formatStat(p.ratio)} standard errors: biased`;
  const cos = p.cosine === null ? '' : `, cosine to the exact gradient ${p.cosine.toFixed(3)}`;
  return `At update ${p.iter.toLocaleString('en')} over ${reps} repetitions: bias ${formatStat(p.bias)} (${within})${cos}.`;
}

class GradErrorPanel implements LanePanel {
  private fold!: Foldable;
  private root!: HTMLElement;
  private fields!: ViewFields;
  private ctx!: PanelContext;
  private controls!: AnalysisControls;
  private chart!: MiniChart;
  private text!: HTMLElement;
  private lane: LaneHandle | null = null;
  private history: GradPoint[] = [];
  private gen = -1;
  /** The update at which the last estimate was asked for (−∞: none). */
  private asked = Number.NEGATIVE_INFINITY;
  private shown: unknown;
  private width = 0;
  /** A refusal stops the interval until the user asks again. */
  private stopped = false;

  mount(container: HTMLElement, ctx: PanelContext): void {
    this.ctx = ctx;
    this.controls = new AnalysisControls('grad', 'Estimate now', () => {
      this.stopped = false;
      this.ask();
    });
    const c = this.controls;
    this.fields = new ViewFields(ctx, ['grad_every', 'grad_reps'], ' ', c.run, ' ', c.cancel);
    this.chart = new MiniChart(
      {
        xLabel: 'update',
        yLabel: 'norm (gradient units)',
        y2Label: 'cosine',
        series: [
          { label: 'bias ‖mean − exact‖', colour: ctx.colour },
          { label: 'standard error', colour: '#777777', dash: [6, 4] },
          { label: '2 × standard error', colour: '#bbbbbb', dash: [2, 3] },
          { label: 'cosine to exact', colour: '#000000', dash: [1, 3], right: true },
        ],
      },
      () => pngName(ctx.fileStem(), 'gradient-error'),
      'gradient error over training',
    );
    this.chart.el.hidden = true;
    this.text = el('p', { className: 'grad-text' });
    this.root = el(
      'div',
      { className: 'grad-error' },
      this.fields.el,
      c.status,
      this.chart.el,
      this.text,
      el(
        'p',
        { className: 'grad-caption' },
        "Each point: the lane's algorithm estimates the gradient at the lane's model (one update with η = 0, repeated with independent chains, as `rbm grad` does) and compares the mean with the exact gradient. A bias above twice the standard error is real, not noise; an unbiased estimator (UCD) stays below it.",
      ),
    );
    this.fold = new Foldable('gradient error, live', 'grad-view', ctx, this.root);
    container.append(this.fold.el);
  }

  private ask(): void {
    const lane = this.lane;
    if (!lane) return;
    const reps = ViewFields.number(this.ctx, 'grad_reps', DEFAULT_GRAD.reps);
    if (lane.analyze({ kind: 'grad', reps, seed: DEFAULT_GRAD.seed })) this.asked = lane.iter;
  }

  update(lane: LaneHandle, ctx: PanelContext): void {
    this.lane = lane;
    this.fields.update(ctx);
    if (lane.gen !== this.gen) {
      // A new lane (configuration or reset): a new history.
      this.gen = lane.gen;
      this.history = [];
      this.asked = Number.NEGATIVE_INFINITY;
      this.stopped = false;
    }
    const v = lane.view;
    // Models whose exact gradient can be enumerated (the smaller layer ≤ 20 units).
    this.fold.el.hidden = v !== null && Math.min(v.m, v.n) > GRAD_EXACT_BITS;
    if (this.fold.el.hidden) return;
    this.controls.enable(lane);
    const r = lane.analyses.grad;
    const running = r?.state === 'running';
    if (!running && !this.stopped && lane.status === 'running' && gradDue(ViewFields.number(ctx, 'grad_every', DEFAULT_GRAD.every), lane.iter, this.asked))
      this.ask();
    const width = ctx.width();
    if (r === this.shown && width === this.width) return;
    this.shown = r;
    this.width = width;
    this.controls.show(this.root, r, {
      unit: 'repetitions',
      running: (q) => `estimating at update ${q.iter >= 0 ? q.iter.toLocaleString('en') : '…'}`,
      done: () => '',
      failed: 'cannot estimate',
    });
    if (!r) return;
    if (r.state === 'failed') this.stopped = true;
    const g = r.result;
    const p = g ? gradPoint(g) : null;
    if (g && p) {
      this.history = addGradPoint(this.history, p);
      setText(this.text, gradText(p, g.estimate.reps));
      setAttr(this.root, 'data-iter', String(g.iter));
      setAttr(this.root, 'data-seed', String(g.seed));
      setAttr(this.root, 'data-estimate', JSON.stringify(g.estimate));
      setAttr(this.root, 'data-points', String(this.history.length));
    }
    this.chart.el.hidden = this.history.length === 0;
    if (this.history.length && this.fold.showing(ctx)) {
      const { x, ys } = gradColumns(this.history);
      this.chart.set(x, ys, width);
    }
  }
}

export const gradErrorPanel: PanelKind = {
  name: 'grad-error',
  title: 'gradient error, live',
  help: "Every so often, the lane's gradient estimate at its current model against the exact gradient: bias, standard error and cosine over training (models small enough to enumerate).",
  term: 'cd',
  create: () => new GradErrorPanel(),
};
