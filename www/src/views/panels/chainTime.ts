// The exact chain-time view (docs/algorithms.md §7; `rbm chain`): for a model of at most 2^24
// joint states (e.g. Bars & Stripes 3×3 or Shifting Bar with 4 hidden units), the law
// p_k = p_0 Tᵏ of a Gibbs chain of the lane's current model after k sweeps, started at the data
// (CD's start) or uniformly, and its distances to the model's equilibrium and to the data,
// computed without sampling in the lane's worker (protocol/analyses.ts) and drawn against k.

import type { LaneHandle } from '../../app/lane';
import { formatDuration } from '../../app/progress';
import type { ChainResult } from '../../generated/core';
import { el, setAttr, setText } from '../dom';
import { MiniChart } from '../miniChart';
import { pngName } from '../png';
import { AnalysisControls } from './analysisControls';
import { Foldable, type LanePanel, type PanelContext, type PanelKind } from './panel';
import { ViewFields } from './viewFields';

/** The chain's start and sweeps when the page has no value (the schema's defaults of
 * `chain_start` and `chain_k`, src/schema/views.rs). */
export const DEFAULT_CHAIN = { start: 'data' as const, kMax: 50 };

/** Most joint states 2^(m+n) the core walks (src/eval/chain.rs MAX_JOINT_BITS). */
export const CHAIN_JOINT_BITS = 24;

/** The chart's columns: k, TV to the model, TV to the data, KL to the model (nats). */
export function chainColumns(r: ChainResult): { x: number[]; ys: number[][] } {
  const p = r.points;
  return { x: p.map((q) => q.k), ys: [p.map((q) => q.tv_model), p.map((q) => q.tv_data), p.map((q) => q.kl_model)] };
}

/** The caption: what the chart shows and what to read off it. */
export function chainCaption(r: ChainResult, start: string): string {
  const p = r.points;
  const last = p[p.length - 1];
  const from = start === 'data' ? 'the data (where CD starts its chains)' : 'uniformly random patterns';
  const tv = (x: number) => x.toFixed(3);
  const cd1 = start === 'data' && p.length > 1 ? ` After one sweep (CD-1's negative phase) it is still ${tv(p[1].tv_model)} from the model.` : '';
  return (
    `Exact law of a Gibbs chain of this model (at update ${r.iter.toLocaleString('en')}) after k sweeps, started at ${from}; no sampling. ` +
    `Total variation to the model's equilibrium: ${tv(p[0].tv_model)} at k = 0, ${tv(last.tv_model)} at k = ${last.k}.${cd1} ` +
    'CD-k estimates the gradient with the chain after k sweeps: while that chain is far from the model, the estimate is biased.'
  );
}

class ChainTimePanel implements LanePanel {
  private fold!: Foldable;
  private root!: HTMLElement;
  private fields!: ViewFields;
  private controls!: AnalysisControls;
  private chart!: MiniChart;
  private caption!: HTMLElement;
  private shown: unknown;
  private width = 0;
  private asked = 'data';

  mount(container: HTMLElement, ctx: PanelContext): void {
    this.controls = new AnalysisControls('chain', 'Compute at the current update', (lane) => {
      const start = ctx.viewOption('chain_start') === 'uniform' ? 'uniform' : 'data';
      this.asked = start;
      lane.analyze({ kind: 'chain', start, kMax: ViewFields.number(ctx, 'chain_k', DEFAULT_CHAIN.kMax) });
    });
    const c = this.controls;
    this.fields = new ViewFields(ctx, ['chain_start', 'chain_k'], ' ', c.run, ' ', c.cancel);
    this.chart = new MiniChart(
      {
        xLabel: 'sweeps k',
        yLabel: 'total variation',
        y2Label: 'KL, nats',
        yRange: [0, 1],
        series: [
          { label: 'TV to the model', colour: ctx.colour },
          { label: 'TV to the data', colour: '#777777', dash: [6, 4] },
          { label: 'KL(p_k ‖ model), nats', colour: '#000000', dash: [2, 3], right: true },
        ],
      },
      () => pngName(ctx.fileStem(), 'chain-time'),
      'exact chain after k sweeps',
    );
    this.chart.el.hidden = true;
    this.caption = el('p', { className: 'chain-caption' });
    this.root = el('div', { className: 'chain-time' }, this.fields.el, el('div', {}, c.bar, ' ', c.status), this.chart.el, this.caption);
    this.fold = new Foldable('exact chain after k sweeps', 'chain-view', ctx, this.root);
    this.fold.el.hidden = true;
    container.append(this.fold.el);
  }

  update(lane: LaneHandle, ctx: PanelContext): void {
    this.fields.update(ctx);
    const v = lane.view;
    // Only models whose joint states the core can walk (the view says the model's size).
    this.fold.el.hidden = !v || v.m + v.n > CHAIN_JOINT_BITS;
    this.controls.enable(lane);
    if (this.fold.el.hidden) return;
    const r = lane.analyses.chain;
    const width = ctx.width();
    if (r === this.shown && width === this.width) return;
    this.shown = r;
    this.width = width;
    this.controls.show(this.root, r, { unit: 'sweeps', running: () => 'walking the chain', done: (q) => `done in ${formatDuration(q.ms)}`, failed: 'failed' });
    if (!r) return;
    const res = r.result;
    this.chart.el.hidden = !res;
    if (!res) return;
    const { x, ys } = chainColumns(res);
    if (this.fold.showing(ctx)) this.chart.set(x, ys, width);
    setText(this.caption, chainCaption(res, this.asked));
    setAttr(this.root, 'data-iter', String(res.iter));
    setAttr(this.root, 'data-points', JSON.stringify(res.points));
    setAttr(this.root, 'data-start', this.asked);
  }
}

export const chainTimePanel: PanelKind = {
  name: 'chain-time',
  title: 'exact chain after k sweeps',
  help: "How far a Gibbs chain of the lane's model is from the model after k sweeps, computed exactly (small models only): from the data, this is why CD-k is biased.",
  term: 'cd',
  create: () => new ChainTimePanel(),
};
