// UCD's stopping times at the current update (Qiu, Zhang & Wang 2020, §3.3 and Figure 3): a
// histogram of τ — the first t ≥ 1 at which the coupled chains ξ_t and η_{t−1} meet — over the
// chains of the lane's latest update (View.taus), with its mean and largest value. A surge of
// long τ is the model's mixing slowing down; τ at T_max is a truncated, biased chain.

import type { LaneHandle } from '../../app/lane';
import { el, setAttr, setText } from '../dom';
import { MiniChart } from '../miniChart';
import { pngName } from '../png';
import { Foldable, type LanePanel, type PanelContext, type PanelKind } from './panel';

/** Counts by τ (`counts[t]` chains stopped at τ = t, possibly summed over trials) as bars:
 * τ = 1..max and the share of chains at each. */
export function tauColumns(counts: readonly number[]): { x: number[]; share: number[]; chains: number; mean: number; max: number } {
  const chains = counts.reduce((a, b) => a + b, 0);
  const x: number[] = [];
  const share: number[] = [];
  let sum = 0;
  let max = 0;
  for (let t = 1; t < counts.length; t++) {
    x.push(t);
    share.push(chains > 0 ? counts[t] / chains : 0);
    sum += t * counts[t];
    if (counts[t] > 0) max = t;
  }
  return { x, share, chains, mean: chains > 0 ? sum / chains : 0, max };
}

/** The histogram's caption. */
export function tauCaption(c: ReturnType<typeof tauColumns>, iter: number, what = 'chains'): string {
  return `Stopping times τ of the ${c.chains.toLocaleString('en')} ${what} of update ${iter.toLocaleString('en')}: mean ${c.mean.toFixed(2)} steps, largest ${c.max} steps. Long τ means the coupled chains take long to meet (slow mixing); a chain at the cap T_max is truncated.`;
}

/** A τ histogram chart (the lane panel's and the study's). */
export function tauChart(colour: string, pngNameOf: () => string): MiniChart {
  return new MiniChart(
    { xLabel: 'stopping time τ, steps', yLabel: 'share of chains', series: [{ label: 'share of chains', colour, bars: true }], height: 160 },
    pngNameOf,
    'histogram of the stopping times τ',
  );
}

class TauHistogramPanel implements LanePanel {
  private fold!: Foldable;
  private chart!: MiniChart;
  private caption!: HTMLElement;
  private root!: HTMLElement;

  mount(container: HTMLElement, ctx: PanelContext): void {
    this.chart = tauChart(ctx.colour, () => pngName(ctx.fileStem(), 'tau-histogram'));
    this.caption = el('p', { className: 'tau-caption' });
    this.root = el('div', { className: 'tau-histogram' }, this.chart.el, this.caption);
    this.fold = new Foldable('stopping times τ now', 'tau-view', ctx, this.root);
    this.fold.el.hidden = true;
    container.append(this.fold.el);
  }

  update(lane: LaneHandle, ctx: PanelContext): void {
    const v = lane.view;
    const taus = v?.taus ?? null;
    this.fold.el.hidden = !taus || taus.length < 2;
    if (!v || !taus || this.fold.el.hidden) return;
    const width = ctx.width();
    if (!this.fold.showing(ctx) || !this.fold.drawn.changed(v, width)) return;
    const c = tauColumns(taus);
    this.chart.set(c.x, [c.share], width);
    setText(this.caption, tauCaption(c, v.iter));
    setAttr(this.root, 'data-iter', String(v.iter));
    setAttr(this.root, 'data-counts', taus.join(','));
  }
}

export const tauHistogramPanel: PanelKind = {
  name: 'tau-histogram',
  title: 'stopping times τ',
  help: "UCD's stopping times τ over the chains of the latest update: how long its coupled chains took to meet.",
  term: 'tau',
  create: () => new TauHistogramPanel(),
};
