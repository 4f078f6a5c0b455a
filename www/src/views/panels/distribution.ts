// The model's probability of each distinct training pattern against its frequency in the data.

import type { LaneHandle } from '../../app/lane';
import { el, setText } from '../dom';
import { drawDistribution } from '../draw';
import { barAt, barLayout, barReadout, hoverReadout } from '../readouts';
import { DrawnFrom, type LanePanel, type PanelContext, type PanelKind, pictureTools } from './panel';

class DistributionPanel implements LanePanel {
  private figure!: HTMLElement;
  private canvas!: HTMLCanvasElement;
  private caption!: HTMLElement;
  private drawn = new DrawnFrom();
  private hit: ((x: number, y: number) => string | null) | null = null;

  mount(container: HTMLElement, ctx: PanelContext): void {
    this.canvas = el('canvas', { className: 'dist', role: 'img' });
    this.caption = el('figcaption', { className: 'dist-caption' });
    this.figure = el(
      'figure',
      { hidden: true },
      this.canvas,
      hoverReadout(this.canvas, () => this.hit),
      this.caption,
      pictureTools(this.canvas, this.caption, 'Model distribution', ctx),
    );
    container.append(this.figure);
  }

  update(lane: LaneHandle, ctx: PanelContext): void {
    const view = lane.view;
    const ds = ctx.dataset();
    const width = ctx.width();
    if (!view || !ds || !this.drawn.changed(view, ds, width)) return;
    const dist = view.dist;
    // Enumerable models only, and only the data set the view was made on.
    this.figure.hidden = !dist || ds.patterns.length !== dist.model.length;
    if (!dist || this.figure.hidden) return;
    drawDistribution(this.canvas, dist, ds.patterns, ds.shape, ctx.colour, width);
    const patterns = ds.patterns;
    const layout = barLayout(patterns.length, patterns[0]?.length ?? 1, ds.shape, width);
    this.hit = (x, y) => {
      const k = barAt(layout, x, y);
      return k === null ? null : barReadout(patterns[k], layout.shape, k, dist);
    };
    const text = `Model probability p(v) of the ${ds.patterns.length} distinct training patterns (filled bars, a white notch where one is cut off; outlines: their frequency in the data). Mass on the data ${(100 * dist.on).toFixed(1)}%, off it ${(100 * dist.off).toFixed(1)}%.`;
    this.canvas.setAttribute('aria-label', text);
    setText(this.caption, text);
  }
}

export const distributionPanel: PanelKind = {
  name: 'distribution',
  title: 'model distribution',
  help: 'The probability the model gives each distinct training pattern (filled bars) against its frequency in the data (outlines). A perfect model fills every outline and puts no mass off the data.',
  term: 'kl',
  create: () => new DistributionPanel(),
};
